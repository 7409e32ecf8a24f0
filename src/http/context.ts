import type { Config } from '../config';
import type { Db } from '../db/database';
import type { Logger } from '../log';
import type { SessionView } from '../identity/sessions';
import type { ClientMetadataDocuments } from '../oauth/metadata-documents';

/** Who is calling, as the tier middleware resolved it. */
export interface Identity {
  userId: number;
  email: string;
  via: 'bearer' | 'session';
  /** A bearer token's OAuth client; null for a session. */
  clientId: string | null;
}

/** The Hono environment of every route group: dependencies come from context, handlers hold no state. */
export interface AppEnv {
  Variables: {
    db: Db;
    config: Config;
    log: Logger;
    /** The clock of time-based rules kept in application code (the login throttle); injectable in tests. */
    now: () => Date;
    /** D18: the client metadata documents this process fetched (an in-memory cache). */
    clientMetadata: ClientMetadataDocuments;
    identity: Identity;
    /** The unverified bearer token of a write that checks it in its own statement (src/http/tiers.ts). */
    bearer: string;
    /** Set when the caller came with a cookie session (half, full and session-only tiers). */
    session: SessionView;
  };
}
