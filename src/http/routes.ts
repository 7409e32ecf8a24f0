import { accountRoutes } from './accounts';
import { attachmentRoutes, transactionAttachmentRoutes } from './attachments';
import { authRoutes } from './auth';
import { budgetReportRoute, budgetRoutes } from './budgets';
import { changeRoutes } from './changes';
import { connectionRoutes, grantRoutes } from './connections';
import { directDebitRoutes } from './direct-debits';
import { discoveryRoutes } from './discovery';
import { duesPlanRoutes } from './dues-plans';
import { exportRoutes } from './exports';
import { healthRoutes } from './health';
import { importRoutes, importRuleRoutes } from './imports';
import { mcpRoutes } from './mcp';
import { oauthRoutes } from './oauth';
import { passkeyRoutes } from './passkeys';
import { peopleReportRoute, peopleRoutes } from './people';
import { accountReconciliationRoutes, reconciliationRoutes } from './reconciliations';
import { reportRoutes } from './reports';
import type { Route } from './route';
import { scheduleRoutes } from './schedules';
import { settingsRoutes } from './settings';
import { transactionRoutes } from './transactions';
import { webauthnRoutes } from './webauthn';

/**
 * Every route of the API by group, each group under its path prefix: what src/http/app.ts mounts
 * and src/http/openapi.ts describes, in the spec's order.
 */
export const ROUTE_GROUPS: readonly [prefix: string, routes: Route[]][] = [
  ['', healthRoutes],
  ['/auth', authRoutes],
  ['/auth/webauthn', webauthnRoutes],
  ['/auth/passkeys', passkeyRoutes],
  ['/auth/tokens', connectionRoutes],
  ['/auth/grants', grantRoutes],
  ['/.well-known', discoveryRoutes],
  ['/oauth', oauthRoutes],
  ['/accounts', [...accountRoutes, ...accountReconciliationRoutes]],
  ['/reconciliations', reconciliationRoutes],
  ['/settings', settingsRoutes],
  ['/transactions', [...transactionRoutes, ...transactionAttachmentRoutes]],
  ['/attachments', attachmentRoutes],
  ['/reports', [...reportRoutes, budgetReportRoute, peopleReportRoute]],
  ['/export', exportRoutes],
  ['/changes', changeRoutes],
  ['/imports', importRoutes],
  ['/import-rules', importRuleRoutes],
  ['/schedules', scheduleRoutes],
  ['/budgets', budgetRoutes],
  ['/people', peopleRoutes],
  ['/dues-plans', duesPlanRoutes],
  ['/direct-debits', directDebitRoutes],
  ['/mcp', mcpRoutes],
];
