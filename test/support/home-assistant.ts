/**
 * The Home Assistant integration's side of GET /api/machine/summary, rebuilt from its sensor.py,
 * and the two limits Home Assistant puts on what a sensor holds.
 */

/** The recorder drops a state's attributes whose JSON is longer than this many bytes. */
export const maxAttributeBytes = 16_384;
/** A longer state makes the sensor `unknown`. */
export const maxStateCharacters = 255;

export interface Sensor {
  name: string;
  /** The state as Home Assistant stores it: `str(value)`, `unknown` for None. */
  state: string;
  attributes: Record<string, unknown> | null;
}

/** What Python's `len()` counts: code points. */
export const characters = (text: string): number => [...text].length;

/** Each sensor the integration builds from one summary (`data` is the decoded JSON body). */
export function buildSensors(data: any): Sensor[] {
  const state = (value: unknown) => (value === null || value === undefined ? 'unknown' : String(value));
  return [
    // state: (data.next or {}).show; attributes: {"up_next": data.upNext}
    { name: 'up_next', state: state((data.next ?? {}).show), attributes: { up_next: data.upNext } },
    { name: 'airing_today', state: state(data.counts.airingToday), attributes: { today: data.today } },
    { name: 'airing_week', state: state(data.counts.airingWeek), attributes: { week: data.week } },
    { name: 'unwatched_episodes', state: state(data.counts.unwatchedEpisodes), attributes: null },
    { name: 'releasing_soon', state: state(data.releasing.length), attributes: { releasing: data.releasing } },
  ];
}

/**
 * `json.dumps(value)` with Python's defaults: `", "` and `": "` separators and ensure_ascii
 * (everything outside space…`~` as `\uXXXX`, a character beyond U+FFFF as two of them).
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') {
    // JSON.stringify escapes quotes, backslashes and control characters as Python does, and
    // leaves everything else raw; Python then escapes whatever is not printable ASCII.
    return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).map(([key, entry]) => `${pythonJsonDumps(key)}: ${pythonJsonDumps(entry)}`);
  return `{${entries.join(', ')}}`;
}

/**
 * The attributes' JSON size in bytes, the larger of the recorder's own (orjson: compact UTF-8, as
 * JSON.stringify writes it) and Python's json.dumps defaults.
 */
export function attributeBytes(attributes: Record<string, unknown>): number {
  return Math.max(Buffer.byteLength(JSON.stringify(attributes)), Buffer.byteLength(pythonJsonDumps(attributes)));
}

/** Each limit a sensor breaks, as readable lines (empty when it fits). */
export function sensorProblems(sensors: Sensor[]): string[] {
  const problems: string[] = [];
  for (const sensor of sensors) {
    if (characters(sensor.state) > maxStateCharacters) problems.push(`${sensor.name}: state of ${characters(sensor.state)} characters`);
    if (sensor.attributes !== null && attributeBytes(sensor.attributes) > maxAttributeBytes) {
      problems.push(`${sensor.name}: attributes of ${attributeBytes(sensor.attributes)} bytes`);
    }
  }
  return problems;
}
