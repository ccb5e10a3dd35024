/** UTC day boundaries of the admin stats (DESIGN.md 8), from the context clock. */
export const DAY_MS = 86_400_000;
export const STATS_DAYS = 7;

export interface StatsWindow {
  /** 00:00 UTC today. */
  todayStart: Date;
  /** 00:00 UTC six days ago: the week is the last 7 UTC days including today. */
  weekStart: Date;
  /** 00:00 UTC tomorrow: the exclusive upper bound of today and the week. */
  tomorrowStart: Date;
}

export function statsWindow(now: Date): StatsWindow {
  const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return {
    todayStart: new Date(todayStart),
    weekStart: new Date(todayStart - (STATS_DAYS - 1) * DAY_MS),
    tomorrowStart: new Date(todayStart + DAY_MS),
  };
}

/** YYYY-MM-DD of a UTC date. */
export function utcDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}
