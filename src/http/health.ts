import { route } from './route';

/** Liveness: answers without touching the database. */
export const healthRoutes = [
  route(
    { method: 'get', path: '/health', tier: 'open', summary: 'Liveness', cannotFail: true, responses: { 200: { description: 'Alive.', text: '`ok`' } } },
    {},
    (c) => c.text('ok'),
  ),
];
