/**
 * "Last used" and "last seen" stamps are written at most once a minute per row (issue 1/6), so a
 * busy token costs reads, not writes. The SQL guard repeats the rule for concurrent requests.
 */
export const USAGE_STAMP_INTERVAL_MS = 60_000;

export function usageStampDue(last: Date | null, now = Date.now()): boolean {
  return last === null || now - last.getTime() >= USAGE_STAMP_INTERVAL_MS;
}
