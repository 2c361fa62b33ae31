import type { Kysely } from 'kysely';

export type Dialect = 'postgres' | 'mysql' | 'sqlite';

/** Tables the kernel owns. Booleans are 0/1 integers so one schema serves every dialect. */
export interface KernelTables {
  kernel_migrations: { plugin: string; name: string; applied_at: number };
  kernel_state: { key: string; value: string; updated_at: number };
  settings: { key: string; value: string; updated_at: number };
  users: {
    id: string;
    email: string;
    name: string;
    status: 'active' | 'invited' | 'suspended';
    password_hash: string | null;
    totp_enabled: number;
    last_login_at: number | null;
    created_at: number;
    updated_at: number;
  };
  roles: { id: string; name: string; description: string | null; builtin: number; created_at: number; updated_at: number };
  role_grants: { id: string; role_id: string; permission: string; scope: string | null };
  user_roles: { user_id: string; role_id: string };
  sessions: {
    id: string;
    token_hash: string;
    user_id: string;
    ip: string | null;
    user_agent: string | null;
    created_at: number;
    last_seen_at: number;
    expires_at: number;
    absolute_expires_at: number;
  };
  audit_log: {
    id: string;
    at: number;
    actor_type: string;
    actor_id: string | null;
    action: string;
    target_type: string | null;
    target_id: string | null;
    diff: string | null;
    ip: string | null;
    user_agent: string | null;
    request_id: string | null;
  };
  notifications: {
    id: string;
    user_id: string;
    kind: string;
    title: string;
    body: string | null;
    link: string | null;
    created_at: number;
    read_at: number | null;
  };
  notification_prefs: { user_id: string; kind: string; in_app: number; email: number };
  password_tokens: { token_hash: string; user_id: string; purpose: 'reset' | 'invite'; created_at: number; expires_at: number; used_at: number | null };
  /** Claimed due times of scheduled work (kernel/jobs/schedules.ts): one replica runs each. */
  schedule_runs: { owner_kind: string; owner_id: string; due_at: number; job_id: string | null; claimed_at: number };
  /** D13 jobs (kernel/jobs); payload and result are JSON text. */
  jobs: {
    id: string;
    kind: string;
    state: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
    payload: string;
    progress: number | null;
    progress_message: string | null;
    result: string | null;
    error_code: string | null;
    error_message: string | null;
    attempts: number;
    max_attempts: number;
    cancel_requested: number;
    created_by: string | null;
    created_at: number;
    started_at: number | null;
    finished_at: number | null;
    run_after: number;
    locked_by: string | null;
    lease_until: number | null;
    updated_at: number;
    subject: string | null;
  };
  api_keys: {
    id: string;
    name: string;
    role_id: string;
    prefix: string;
    key_hash: string;
    created_by: string | null;
    created_at: number;
    last_used_at: number | null;
    revoked_at: number | null;
  };
  /** K45: the file store's index (kernel/files): which blob holds a key's contents. */
  file_objects: { key: string; blob: string; size: number; created_at: number; expires_at: number | null };
  /** K45: the `meta` driver's contents, a blob in chunks numbered from 0. */
  file_chunks: { blob: string; seq: number; data: Buffer };
}

export type MetaDb = Kysely<KernelTables>;
