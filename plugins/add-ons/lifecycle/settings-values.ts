import {
  isTimeZone,
  matchesSettingPattern,
  settingFormatProblem,
  type SettingField,
  type SettingFormat,
  type SettingsSchema,
} from '../../../addons-sdk/src/manifest/index.js';
import { AppError, type ErrorIssue, type SecretBox } from '../../../kernel/api.js';

export type SettingValue = string | number | boolean;
/** As stored: plain values, and `{ $sealed }` for a secret field. */
export type StoredSettings = Record<string, SettingValue | { $sealed: string }>;

function check(name: string, field: SettingField, value: unknown, at: string): ErrorIssue | null {
  const bad = (message: string): ErrorIssue => ({ path: at, code: 'invalid_setting', message: `${field.title ?? name}: ${message}` });
  switch (field.type) {
    case 'boolean':
      if (typeof value !== 'boolean') return bad('must be true or false.');
      break;
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return bad('must be a number.');
      if (field.type === 'integer' && !Number.isInteger(value)) return bad('must be a whole number.');
      if (field.minimum !== undefined && value < field.minimum) return bad(`must be at least ${field.minimum}.`);
      if (field.maximum !== undefined && value > field.maximum) return bad(`must be at most ${field.maximum}.`);
      break;
    case 'string':
      if (typeof value !== 'string') return bad('must be text.');
      if (field.minLength !== undefined && value.length < field.minLength) return bad(`must be at least ${field.minLength} characters.`);
      if (value.length > (field.maxLength ?? 10_000)) return bad(`must be at most ${field.maxLength ?? 10_000} characters.`);
      if (field.pattern !== undefined) {
        // RE2, linear in the value's length (AO23): an author's pattern never holds the API thread.
        const matches = matchesSettingPattern(field.pattern, value);
        if (matches === null) return bad("cannot be checked: the add-on's pattern is not one the instance runs (RE2 syntax).");
        if (!matches) return bad('does not have the expected form.');
      }
      if (field.format !== undefined && value !== '') {
        const problem = settingFormatProblem(field.format, value);
        if (problem) return field.format === 'time-zone' ? { path: at, code: 'invalid_time_zone', message: problem } : bad(problem);
      }
      break;
  }
  if (field.enum && !field.enum.includes(value as string | number)) return bad(`must be one of ${field.enum.join(', ')}.`);
  return null;
}

/**
 * Checks settings against the add-on's schema (D23) and returns what to store: unknown names
 * refused, defaults filled, required ones present, secret values sealed. A secret left out of
 * a change keeps its stored value (it is write-only, so a form cannot send it back); `null`
 * clears a setting.
 */
export function settingsToStore(
  schema: SettingsSchema,
  input: Record<string, unknown>,
  previous: StoredSettings,
  box: SecretBox,
  at = 'body.settings',
): StoredSettings {
  const issues: ErrorIssue[] = [];
  for (const name of Object.keys(input)) {
    if (!Object.hasOwn(schema.properties, name)) issues.push({ path: `${at}.${name}`, code: 'unknown_setting', message: `The add-on has no setting ${name}.` });
  }
  const out: StoredSettings = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    const given = Object.hasOwn(input, name) ? input[name] : undefined;
    if (given === null) continue;
    if (given === undefined) {
      if (previous[name] !== undefined) out[name] = previous[name]!;
      else if (field.default !== undefined) out[name] = field.secret ? { $sealed: box.encrypt(JSON.stringify(field.default)) } : field.default;
      continue;
    }
    const issue = check(name, field, given, `${at}.${name}`);
    if (issue) issues.push(issue);
    else out[name] = field.secret ? { $sealed: box.encrypt(JSON.stringify(given)) } : (given as SettingValue);
  }
  for (const name of schema.required) {
    if (out[name] === undefined && !issues.some((i) => i.path === `${at}.${name}`))
      issues.push({ path: `${at}.${name}`, code: 'required', message: `${schema.properties[name]?.title ?? name} is required.` });
  }
  if (issues.length) throw new AppError('ADDON_SETTINGS_INVALID', { issues });
  return out;
}

/** What the API shows: every value but the secrets, and which secrets are set. */
export function settingsView(schema: SettingsSchema, stored: StoredSettings): { values: Record<string, SettingValue>; secretsSet: string[] } {
  const values: Record<string, SettingValue> = {};
  const secretsSet: string[] = [];
  for (const [name, value] of Object.entries(stored)) {
    if (!Object.hasOwn(schema.properties, name)) continue;
    if (typeof value === 'object') secretsSet.push(name);
    else values[name] = value;
  }
  return { values, secretsSet };
}

/** One setting as a form shows it (the manifest's field, without a secret's default). */
export interface SettingFormField {
  name: string;
  type: SettingField['type'];
  title?: string;
  description?: string;
  enum?: Array<string | number>;
  default?: SettingValue;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: SettingFormat;
  required: boolean;
  secret: boolean;
}

/**
 * The settings schema as a form needs it, in the manifest's order: every field's rules, and no
 * secret's default (a secret is write-only, its default included).
 */
export function settingsForm(schema: SettingsSchema): SettingFormField[] {
  return Object.entries(schema.properties).map(([name, f]) => {
    const { secret, default: dflt, ...rest } = f;
    return {
      name,
      ...rest,
      ...(dflt !== undefined && !secret ? { default: dflt } : {}),
      required: schema.required.includes(name),
      secret: secret === true,
    };
  });
}

/** The plain values, secrets opened: only for the add-on's own sandbox calls. */
export function openSettings(stored: StoredSettings, box: SecretBox): Record<string, SettingValue> {
  const out: Record<string, SettingValue> = {};
  for (const [name, value] of Object.entries(stored)) out[name] = typeof value === 'object' ? (JSON.parse(box.decrypt(value.$sealed)) as SettingValue) : value;
  return out;
}

/** Booking rule fields an add-on's settings of the same name set (decision AO3). */
const BOOKING_NUMBERS = ['capacity', 'slotMinutes', 'windowDays', 'cancelBeforeMinutes'] as const;

/**
 * An app endpoint's booking rules with the operator's settings applied: `capacity`,
 * `slotMinutes`, `windowDays` and `cancelBeforeMinutes` (numbers), `openingHours` (a JSON
 * string) and the endpoint's `timeZone` (an IANA name) replace the manifest's values when set. The endpoint's own checks then apply as for
 * any endpoint (a bad opening-hours string fails the install or PATCH with 400).
 */
export function withBookingSettings<D extends { booking?: unknown; timeZone?: string | undefined }>(definition: D, settings: Record<string, SettingValue>): D {
  const booking = definition.booking;
  if (!booking || typeof booking !== 'object') return definition;
  // The venue's clock: slot times are on it (an IANA name; the endpoint's check refuses others).
  const timeZone = typeof settings.timeZone === 'string' && settings.timeZone.trim() ? { timeZone: settings.timeZone.trim() } : {};
  // Refused here, at the setting, in the setting's words: "Europe/Pariss" would otherwise be stored and put every slot on UTC.
  if (timeZone.timeZone !== undefined && !isTimeZone(timeZone.timeZone))
    throw new AppError('ADDON_SETTINGS_INVALID', {
      issues: [
        {
          path: 'body.settings.timeZone',
          code: 'invalid_time_zone',
          message: `${timeZone.timeZone} is not a time zone: use an IANA name such as Europe/Paris.`,
        },
      ],
    });
  const next: Record<string, unknown> = { ...(booking as Record<string, unknown>) };
  for (const k of BOOKING_NUMBERS) if (typeof settings[k] === 'number') next[k] = settings[k];
  if (typeof settings.openingHours === 'string' && settings.openingHours.trim()) {
    try {
      next.openingHours = JSON.parse(settings.openingHours);
    } catch {
      throw new AppError('ADDON_SETTINGS_INVALID', {
        issues: [{ path: 'body.settings.openingHours', code: 'invalid_setting', message: 'openingHours is JSON: {"mon": [["09:00","17:00"]], …}.' }],
      });
    }
  }
  return { ...definition, ...timeZone, booking: next };
}

/**
 * What an upgrade does to one stored setting (AO20): `drop` (the new version does not declare
 * it, or it stopped being secret: a secret is never shown, so it is set again), `convert` (its
 * type changed and the value converts without loss), `seal` (it became secret), `invalid` (the
 * new rules refuse it: the upgrade must give a new value). Messages never carry a secret's value.
 */
export interface SettingChange {
  /** null: the app's own settings; else a named instance's (D28). */
  instance: string | null;
  name: string;
  action: 'drop' | 'convert' | 'seal' | 'invalid';
  message: string;
}

function converted(value: SettingValue, type: SettingField['type']): SettingValue | undefined {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : String(value);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return undefined;
    case 'number':
    case 'integer': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
      if (!Number.isFinite(n) || (type === 'integer' && !Number.isInteger(n))) return undefined;
      return n;
    }
  }
}

/**
 * The stored settings carried over to a new schema: every value re-checked against the new
 * rules, converted where its type changed, sealed where it became secret. `carried` holds only
 * what is kept; `changes` says what happened to the rest (instance: null).
 */
export function carrySettings(
  from: SettingsSchema,
  to: SettingsSchema,
  stored: StoredSettings,
  box: SecretBox,
): { carried: StoredSettings; changes: Array<Omit<SettingChange, 'instance'>> } {
  const carried: StoredSettings = {};
  const changes: Array<Omit<SettingChange, 'instance'>> = [];
  for (const [name, value] of Object.entries(stored)) {
    const field = to.properties[name];
    if (!field) {
      // A value the old schema no longer knew either was already ignored: nothing to report.
      if (Object.hasOwn(from.properties, name)) changes.push({ name, action: 'drop', message: `${name} is no longer a setting of this version.` });
      continue;
    }
    const wasSecret = typeof value === 'object';
    if (wasSecret && !field.secret) {
      changes.push({ name, action: 'drop', message: `${name} is no longer secret: its value is not shown, so it is dropped; set it again.` });
      continue;
    }
    const plain = wasSecret ? (JSON.parse(box.decrypt(value.$sealed)) as SettingValue) : value;
    const next = converted(plain, field.type);
    const shown = (v: SettingValue) => (field.secret ? 'the value' : JSON.stringify(v));
    if (next === undefined) {
      changes.push({ name, action: 'invalid', message: `${field.title ?? name}: ${shown(plain)} is not a ${field.type}; give a new value.` });
      continue;
    }
    const issue = check(name, field, next, name);
    if (issue) {
      changes.push({ name, action: 'invalid', message: `${issue.message} Give a new value.` });
      continue;
    }
    if (next !== plain) changes.push({ name, action: 'convert', message: `${name}: ${shown(plain)} becomes ${shown(next)} (a ${field.type}).` });
    if (field.secret && !wasSecret) changes.push({ name, action: 'seal', message: `${name} becomes secret: its value is sealed and no longer shown.` });
    carried[name] = field.secret ? (wasSecret && next === plain ? value : { $sealed: box.encrypt(JSON.stringify(next)) }) : next;
  }
  return { carried, changes };
}

/**
 * The settings an upgrade stores (AO20): the stored ones carried to the new schema
 * (carrySettings), then `input` applied as any change is. A value the new rules refuse must be
 * given in `input`: else 400 ADDON_SETTINGS_INVALID with an issue at `<at>.<name>`.
 */
export function upgradeSettings(
  from: SettingsSchema,
  to: SettingsSchema,
  stored: StoredSettings,
  input: Record<string, unknown>,
  box: SecretBox,
  at = 'body.settings',
): StoredSettings {
  const { carried, changes } = carrySettings(from, to, stored, box);
  const issues: ErrorIssue[] = changes
    .filter((c) => c.action === 'invalid' && !Object.hasOwn(input, c.name))
    .map((c) => ({ path: `${at}.${c.name}`, code: 'invalid_setting', message: c.message }));
  let out: StoredSettings | null = null;
  try {
    out = settingsToStore(to, input, carried, box, at);
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'ADDON_SETTINGS_INVALID') throw err;
    for (const i of err.issues ?? []) if (!issues.some((j) => j.path === i.path)) issues.push(i);
  }
  if (issues.length || !out) throw new AppError('ADDON_SETTINGS_INVALID', { issues });
  return out;
}
