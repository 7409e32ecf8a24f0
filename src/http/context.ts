import type { Config } from '../config';
import type { Db } from '../db/database';
import type { Logger } from '../log';

/** Who is calling, as the tier middleware resolved it. */
export interface Identity {
  userId: number;
  email: string;
  via: 'bearer' | 'session';
}

/** The Hono environment of every route group: dependencies come from context, handlers hold no state. */
export interface AppEnv {
  Variables: {
    db: Db;
    config: Config;
    log: Logger;
    identity: Identity;
  };
}
