/**
 * The one parser for dates a caller sends. ISO 8601 only; a date that is not in the calendar
 * (`2026-02-31`, which `Date.parse` turns into 3 March) or outside years 1–9999 (PostgreSQL
 * refuses year 0, JavaScript dates stop at 275760) is refused, not adjusted.
 */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, built without Date.UTC's two-digit-year rule. */
const MIN_TIME = new Date('0001-01-01T00:00:00.000Z').getTime();
const MAX_TIME = new Date('9999-12-31T23:59:59.999Z').getTime();

export type TimePart = 'required' | 'optional';

/** Epoch ms of a UTC calendar time; Date.UTC reads years 0–99 as 1900–1999, so those are set apart. */
function utcTime(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * `time: 'required'`: a date-time with its offset (`2026-12-31T23:59:59Z`, `…+02:00`).
 * `time: 'optional'`: also a day (`2026-01-31`, midnight UTC) or a date-time without offset (UTC).
 * Null when the text is not such a date.
 */
export function parseIsoDate(text: string, time: TimePart): Date | null {
  const m = ISO_8601.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, offset] = m;
  if (time === 'required' && (h === undefined || offset === undefined)) return null;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (offset && offset.toUpperCase() !== 'Z') {
    const digits = offset.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2));
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (offset[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = frac === undefined ? 0 : Number(`${frac}00`.slice(0, 3));
  const at = utcTime(year, month, day, hour, minute, second, ms) - offsetMinutes * 60_000;
  if (year < 1 || at < MIN_TIME || at > MAX_TIME) return null;
  return new Date(at);
}
