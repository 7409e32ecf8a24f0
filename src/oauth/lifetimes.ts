// Spec: Limits and Tokens and codes — the device grant's lifetimes, in a module of their own that
// imports nothing: the grant's code (device-grants.ts) and its answer's shape (views.ts) both take
// them, and views.ts taking them from device-grants.ts closed an import circle (device-grants →
// clients → views → device-grants; ../shared/style.md, "Where we crossed a line").

export const DEVICE_GRANT_SECONDS = 600;
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
