import type { Kysely } from 'kysely';
import { type KernelTables, largeText, type MetaDb, type Migration, rerunnableIndex } from '../../kernel/api.js';

export type AddonTables = {
  /**
   * Staged packages (D24 `staged`): the tarball itself lives here, base64, so every replica
   * sharing the meta store can serve and run it; each process unpacks it once into its cache.
   */
  addon_packages: {
    addon_key: string;
    version: string;
    sha256: string;
    size: number;
    /** 1 when it came from a catalog index whose sha256 it matched; 0 for an upload. */
    verified: number;
    source: string;
    manifest: string;
    bytes: string;
    staged_by: string | null;
    staged_at: number;
  };
  addons: {
    addon_key: string;
    version: string;
    enabled: number;
    connection_id: string | null;
    manifest: string;
    /** JSON of the operator's settings; a secret setting's value is sealed (`{"$sealed": …}`). */
    settings: string;
    installed_by: string | null;
    installed_at: number;
    updated_at: number;
  };
  addon_kv: {
    addon_key: string;
    k: string;
    v: string;
    size: number;
  };
  /** Host names serving a public-page surface (D28 `PUT /surfaces/domains`); the whole set is written at once. */
  addon_domains: {
    /** Lowercase DNS name, `:port` kept when given. */
    host: string;
    addon_key: string;
    surface: string;
    /** The app instance the page is for (`PUT /surfaces/instances`); null: the app itself. */
    instance_id: string | null;
    updated_at: number;
  };
  /** One row per e-mail an add-on sent within the last hour: the hourly quota, all replicas together (AO24). */
  addon_mail_sends: {
    id: string;
    addon_key: string;
    sent_at: number;
  };
  /** What connect stored (D29): secret fields or OAuth tokens, sealed as one JSON value. */
  addon_connections: {
    addon_key: string;
    kind: string;
    /** Sealed JSON (`addon-connections` box); never returned, never logged. */
    sealed: string;
    connected_at: number;
    /** When the OAuth access token expires (ms), or null (a secret, or no expiry given). */
    expires_at: number | null;
    updated_at: number;
  };
  /** An app's named instances (D28): one app run for several venues, each with its own settings. */
  addon_instances: {
    addon_key: string;
    instance_id: string;
    name: string;
    /** As `addons.settings`: JSON, secret values sealed. */
    settings: string;
    position: number;
    created_at: number;
    updated_at: number;
  };
  /** OAuth 2 authorizations under way (D29): single use, bound to the session, 10 minutes. */
  addon_oauth_states: {
    /** sha256 (hex) of the state handed out: the store never holds a live state. */
    state_hash: string;
    addon_key: string;
    session_id: string;
    /** The PKCE code_verifier, sealed. */
    verifier: string;
    redirect_uri: string;
    created_at: number;
    expires_at: number;
    used_at: number | null;
  };
};

export type AddonsDb = Kysely<KernelTables & AddonTables>;
export const addonsDb = (db: MetaDb): AddonsDb => db.withTables<AddonTables>();

export const addonMigrations: Migration[] = [
  {
    name: '0001_add_ons',
    async up(db) {
      await db.schema
        .createTable('addon_packages')
        .ifNotExists()
        .addColumn('addon_key', 'varchar(40)', (c) => c.notNull())
        .addColumn('version', 'varchar(64)', (c) => c.notNull())
        .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        .addColumn('verified', 'integer', (c) => c.notNull())
        .addColumn('source', 'varchar(2048)', (c) => c.notNull())
        .addColumn('manifest', largeText(db), (c) => c.notNull())
        .addColumn('bytes', largeText(db), (c) => c.notNull())
        .addColumn('staged_by', 'varchar(32)')
        .addColumn('staged_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('addon_packages_pk', ['addon_key', 'version'])
        .execute();
      await db.schema
        .createTable('addons')
        .ifNotExists()
        .addColumn('addon_key', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('version', 'varchar(64)', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('connection_id', 'varchar(64)')
        .addColumn('manifest', largeText(db), (c) => c.notNull())
        .addColumn('settings', largeText(db), (c) => c.notNull())
        .addColumn('installed_by', 'varchar(32)')
        .addColumn('installed_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('addon_kv')
        .ifNotExists()
        .addColumn('addon_key', 'varchar(40)', (c) => c.notNull())
        .addColumn('k', 'varchar(200)', (c) => c.notNull())
        .addColumn('v', largeText(db), (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('addon_kv_pk', ['addon_key', 'k'])
        .execute();
      await db.schema
        .createTable('addon_schedule_runs')
        .ifNotExists()
        .addColumn('addon_key', 'varchar(40)', (c) => c.notNull())
        .addColumn('hook', 'varchar(120)', (c) => c.notNull())
        .addColumn('due_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('addon_schedule_runs_pk', ['addon_key', 'hook', 'due_at'])
        .execute();
    },
  },
  {
    name: '0002_addon_placements',
    async up(db) {
      await db.schema
        .createTable('addon_placements')
        .ifNotExists()
        .addColumn('addon_key', 'varchar(40)', (c) => c.notNull())
        .addColumn('surface', 'varchar(64)', (c) => c.notNull())
        .addColumn('nav_section', 'varchar(40)', (c) => c.notNull())
        .addColumn('nav_order', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('addon_placements_pk', ['addon_key', 'surface'])
        .execute();
    },
  },
  {
    name: '0003_addon_connect',
    async up(db) {
      await db.schema
        .createTable('addon_connections')
        .ifNotExists()
        .addColumn('addon_key', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('sealed', largeText(db), (c) => c.notNull())
        .addColumn('connected_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('addon_oauth_states')
        .ifNotExists()
        .addColumn('state_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('addon_key', 'varchar(40)', (c) => c.notNull())
        .addColumn('session_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('verifier', 'varchar(512)', (c) => c.notNull())
        .addColumn('redirect_uri', 'varchar(2048)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
    },
  },
  {
    name: '0004_addon_domains',
    async up(db) {
      await db.schema
        .createTable('addon_domains')
        .ifNotExists()
        .addColumn('host', 'varchar(260)', (c) => c.primaryKey())
        .addColumn('addon_key', 'varchar(40)', (c) => c.notNull())
        .addColumn('surface', 'varchar(64)', (c) => c.notNull())
        .addColumn('instance_id', 'varchar(64)')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  {
    name: '0005_addon_instances',
    async up(db) {
      await db.schema
        .createTable('addon_instances')
        .ifNotExists()
        .addColumn('addon_key', 'varchar(40)', (c) => c.notNull())
        .addColumn('instance_id', 'varchar(40)', (c) => c.notNull())
        .addColumn('name', 'varchar(120)', (c) => c.notNull())
        .addColumn('settings', largeText(db), (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('addon_instances_pk', ['addon_key', 'instance_id'])
        .execute();
    },
  },
  {
    name: '0006_addon_mail_sends',
    async up(db) {
      await db.schema
        .createTable('addon_mail_sends')
        .ifNotExists()
        .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('addon_key', 'varchar(40)', (c) => c.notNull())
        .addColumn('sent_at', 'bigint', (c) => c.notNull())
        .execute();
      await rerunnableIndex(db.schema.createIndex('addon_mail_sends_key_at').on('addon_mail_sends').columns(['addon_key', 'sent_at']).execute());
    },
  },
  {
    // Placements live in the pages plugin's navigation now (decisions PG11): its 0003_nav moved
    // the rows (pages loads first: add-ons requires it), so the table goes. DROP … IF EXISTS
    // meets a rerun (K10).
    name: '0007_addon_placements_moved',
    async up(db) {
      await db.schema.dropTable('addon_placements').ifExists().execute();
    },
  },
  {
    // K49: schedule claims are the kernel's (`schedule_runs`, owner kind 'addon', owner id
    // `<key>:<hook>`); the claims of the last week move there so no due time runs twice across
    // the upgrade. Rerunnable: a MySQL rerun finds the old table gone.
    name: '0008_schedule_runs_to_kernel',
    async up(db) {
      const rows = await db
        .selectFrom('addon_schedule_runs')
        .select(['addon_key', 'hook', 'due_at'])
        .execute()
        .catch(() => null);
      if (rows === null) return;
      const values = rows.map((r: { addon_key: string; hook: string; due_at: number | string }) => ({
        owner_kind: ADDON_SCHEDULE_OWNER,
        owner_id: scheduleOwnerId(r.addon_key, r.hook),
        due_at: Number(r.due_at),
        job_id: null,
        claimed_at: Number(r.due_at),
      }));
      for (let i = 0; i < values.length; i += 200)
        await db
          .insertInto('schedule_runs')
          .values(values.slice(i, i + 200))
          .execute();
      await db.schema.dropTable('addon_schedule_runs').ifExists().execute();
    },
  },
];

/** The owner kind of add-ons' claims in the kernel's `schedule_runs` (K49). */
export const ADDON_SCHEDULE_OWNER = 'addon';
/** An add-on schedule hook's owner id in `schedule_runs`. */
export const scheduleOwnerId = (key: string, hook: string): string => `${key}:${hook}`;
