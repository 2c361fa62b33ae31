import { describe, expect, it } from 'vitest';
import type { SchemaModel, Table } from '../../../../engine/schema/model.js';
import { SchemaParseError } from '../diagnostics.js';
import { detectDialect } from './detect.js';
import { parseSql } from './index.js';

const table = (m: SchemaModel, name: string): Table => {
  const t = m.tables.find((x) => x.name === name);
  if (!t) throw new Error(`no table ${name} in ${m.tables.map((x) => x.name).join(', ')}`);
  return t;
};
const col = (t: Table, name: string) => {
  const c = t.columns.find((x) => x.name === name);
  if (!c) throw new Error(`no column ${name} in ${t.name}`);
  return c;
};

/** The 1-based line and column of the first occurrence of `needle`. */
function positionOf(source: string, needle: string): { line: number; column: number } {
  const at = source.indexOf(needle);
  const before = source.slice(0, at).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

async function failure(source: string, dialect?: 'postgres' | 'mysql' | 'sqlite'): Promise<SchemaParseError> {
  try {
    await parseSql(source, dialect);
  } catch (err) {
    if (err instanceof SchemaParseError) return err;
    throw err;
  }
  throw new Error('parsed without an error');
}

describe('PostgreSQL DDL', () => {
  const source = `
-- A comment; with a semicolon
/* block /* nested */ still comment; */
SET client_encoding = 'UTF8';
CREATE TYPE public.status AS ENUM ('draft', 'it''s live');
CREATE DOMAIN email AS citext CHECK (VALUE ~ '@');
CREATE TABLE public.author (
  id serial PRIMARY KEY,
  "E-mail ""Main""" email NOT NULL,
  name varchar(120) NOT NULL DEFAULT 'anon'::character varying,
  born date NULL,
  bio text DEFAULT $$it's; fine$$,
  CONSTRAINT author_email_key UNIQUE ("E-mail ""Main""")
);
COMMENT ON TABLE public.author IS 'Writers';
COMMENT ON COLUMN public.author.name IS 'Pen name';
CREATE TABLE post (
  id bigint GENERATED ALWAYS AS IDENTITY,
  author_id integer REFERENCES author ON DELETE CASCADE,
  status status NOT NULL DEFAULT 'draft',
  price numeric(10, 2) CHECK (price >= 0),
  qty int,
  total numeric(12, 2) GENERATED ALWAYS AS (price * qty) STORED,
  created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
  tags text[],
  PRIMARY KEY (id, author_id),
  FOREIGN KEY (qty) REFERENCES public.author (id) ON UPDATE SET NULL ON DELETE RESTRICT
);
CREATE UNIQUE INDEX post_status_price ON ONLY public.post USING btree (status, price DESC);
CREATE INDEX ON post (lower(status::text));
CREATE VIEW recent AS SELECT * FROM post WHERE created_at > now() - interval '1 day';
CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $body$ BEGIN NEW.x := 1; RETURN NEW; END; $body$;
CREATE SEQUENCE public.legacy_id_seq;
CREATE TABLE legacy (id integer NOT NULL, code text);
ALTER TABLE ONLY public.legacy ALTER COLUMN id SET DEFAULT nextval('public.legacy_id_seq'::regclass);
ALTER TABLE ONLY public.legacy ADD CONSTRAINT legacy_pkey PRIMARY KEY (id);
ALTER TABLE public.legacy ADD CONSTRAINT legacy_code_check CHECK ((length(code) > 1)), ADD COLUMN note text;
ALTER TABLE public.legacy OWNER TO postgres;
ALTER TYPE status ADD VALUE 'archived' AFTER 'draft';
`;

  it('reads tables, columns, types, keys and enums', async () => {
    const { model, warnings } = await parseSql(source);
    expect(model.dialect).toBe('postgres');
    expect(model.tables.map((t) => [t.schema, t.name, t.kind])).toEqual([
      ['public', 'author', 'table'],
      ['public', 'post', 'table'],
      ['public', 'recent', 'view'],
      ['public', 'legacy', 'table'],
    ]);
    expect(model.enums).toEqual([{ schema: 'public', name: 'status', values: ['draft', 'archived', "it's live"] }]);

    const author = table(model, 'author');
    expect(author.comment).toBe('Writers');
    expect(author.primaryKey).toEqual({ name: 'author_pkey', columns: ['id'] });
    expect(col(author, 'id')).toMatchObject({ type: 'integer', nativeType: 'integer', autoIncrement: true, nullable: false, default: null });
    // A quoted identifier keeps its case, spaces and (unescaped) quotes; a domain reads as its base type.
    expect(col(author, 'E-mail "Main"')).toMatchObject({ type: 'text', nativeType: 'email', nullable: false });
    expect(col(author, 'name')).toMatchObject({
      type: 'string',
      nativeType: 'character varying(120)',
      maxLength: 120,
      default: "'anon'::character varying",
      comment: 'Pen name',
    });
    expect(col(author, 'born')).toMatchObject({ type: 'date', nullable: true });
    expect(col(author, 'bio').default).toBe("$$it's; fine$$");
    expect(author.uniques).toEqual([{ name: 'author_email_key', columns: ['E-mail "Main"'] }]);
    expect(author.indexes).toEqual([{ name: 'author_email_key', columns: ['E-mail "Main"'], unique: true }]);

    const post = table(model, 'post');
    expect(post.primaryKey).toEqual({ name: 'post_pkey', columns: ['id', 'author_id'] });
    expect(col(post, 'id')).toMatchObject({ type: 'bigint', autoIncrement: true, nullable: false });
    expect(col(post, 'author_id').nullable).toBe(false);
    expect(col(post, 'status')).toMatchObject({ type: 'enum', nativeType: 'status', enumValues: ['draft', 'archived', "it's live"], default: "'draft'" });
    expect(col(post, 'price')).toMatchObject({ type: 'decimal', nativeType: 'numeric(10,2)', precision: 10, scale: 2 });
    expect(col(post, 'total').generated).toEqual({ kind: 'stored', expression: 'price * qty' });
    expect(col(post, 'created_at')).toMatchObject({ type: 'datetime', nativeType: 'timestamp(3) with time zone', default: 'now()', nullable: false });
    expect(col(post, 'tags')).toMatchObject({ type: 'other', nativeType: 'text[]' });
    expect(post.foreignKeys).toEqual([
      // REFERENCES without columns means the referenced table's primary key.
      {
        name: 'post_author_id_fkey',
        columns: ['author_id'],
        referencedSchema: 'public',
        referencedTable: 'author',
        referencedColumns: ['id'],
        onDelete: 'cascade',
        onUpdate: 'no action',
      },
      {
        name: 'post_qty_fkey',
        columns: ['qty'],
        referencedSchema: 'public',
        referencedTable: 'author',
        referencedColumns: ['id'],
        onDelete: 'restrict',
        onUpdate: 'set null',
      },
    ]);
    expect(post.checks).toEqual([{ name: 'post_price_check', expression: 'price >= 0' }]);
    expect(post.indexes).toEqual([
      { name: 'post_status_price', columns: ['status', 'price'], unique: true },
      { name: 'post_expr_idx', columns: ['lower(status::text)'], unique: false },
    ]);
    expect(post.uniques).toEqual([{ name: 'post_status_price', columns: ['status', 'price'] }]);

    expect(table(model, 'recent')).toMatchObject({ kind: 'view', columns: [] });

    const legacy = table(model, 'legacy');
    expect(col(legacy, 'id')).toMatchObject({ autoIncrement: true, default: null, nullable: false });
    expect(legacy.primaryKey).toEqual({ name: 'legacy_pkey', columns: ['id'] });
    expect(legacy.checks).toEqual([{ name: 'legacy_code_check', expression: 'length(code) > 1' }]);
    expect(legacy.columns.map((c) => c.name)).toEqual(['id', 'code', 'note']);

    const skipped = warnings.map((w) => w.message);
    expect(skipped).toEqual(
      expect.arrayContaining([
        'skipped SET: session settings are not part of the schema model',
        'skipped CREATE FUNCTION touch: not part of the schema model',
        'skipped CREATE SEQUENCE public: not part of the schema model',
        'skipped ALTER TABLE legacy OWNER TO: not part of the schema model',
      ]),
    );
    expect(warnings.find((w) => w.message.includes('CREATE FUNCTION'))).toMatchObject(positionOf(source, 'CREATE FUNCTION'));
  });

  it('folds unquoted names to lower case and keeps quoted ones', async () => {
    const { model } = await parseSql('CREATE TABLE Person (ID INT, "Name" TEXT);', 'postgres');
    expect(model.tables[0]!.name).toBe('person');
    expect(model.tables[0]!.columns.map((c) => c.name)).toEqual(['id', 'Name']);
  });

  it('reads the DDL inside DO blocks (drizzle-kit migrations), without running anything', async () => {
    const source = `CREATE TABLE "users" ("id" serial PRIMARY KEY NOT NULL);
CREATE TABLE "posts" ("id" serial PRIMARY KEY NOT NULL, "author_id" integer);
--> statement-breakpoint
DO $$ BEGIN
 ALTER TABLE "posts" ADD CONSTRAINT "posts_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
EXCEPTION
 WHEN duplicate_object THEN null;
END $$;
DO $$ BEGIN RAISE NOTICE 'hello'; END $$;`;
    const { model, warnings } = await parseSql(source, 'postgres');
    expect(table(model, 'posts').foreignKeys).toEqual([
      {
        name: 'posts_author_id_users_id_fk',
        columns: ['author_id'],
        referencedSchema: 'public',
        referencedTable: 'users',
        referencedColumns: ['id'],
        onDelete: 'cascade',
        onUpdate: 'no action',
      },
    ]);
    expect(warnings).toEqual([{ ...positionOf(source, 'DO $$ BEGIN RAISE'), message: 'skipped DO: not part of the schema model' }]);
  });

  it('follows SET search_path for unqualified names', async () => {
    const { model } = await parseSql('SET search_path TO "$user", app; CREATE TABLE t (id int);', 'postgres');
    expect(model.tables[0]!.schema).toBe('app');
  });
});

describe('MySQL DDL', () => {
  const source = `-- MySQL dump 10.13
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;
DROP TABLE IF EXISTS \`user\`;
CREATE TABLE \`user\` (
  \`id\` int(10) unsigned NOT NULL AUTO_INCREMENT,
  \`e\`\`mail\` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  \`role\` enum('admin','it''s') NOT NULL DEFAULT 'admin' COMMENT 'The "role"',
  \`active\` tinyint(1) NOT NULL DEFAULT '1',
  \`score\` decimal(8,3) DEFAULT NULL,
  \`profile\` longtext CHECK (json_valid(\`profile\`)),
  \`updated_at\` datetime(3) DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  \`label\` varchar(300) GENERATED ALWAYS AS (concat(\`e\`\`mail\`,' ',\`role\`)) VIRTUAL,
  PRIMARY KEY (\`id\`),
  UNIQUE KEY \`user_email\` (\`e\`\`mail\`),
  KEY \`idx_role\` (\`role\`,\`e\`\`mail\`(10))
) ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4 COMMENT='People';
LOCK TABLES \`user\` WRITE;
UNLOCK TABLES;
CREATE TABLE \`post\` (
  \`id\` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,
  \`user_id\` int(10) unsigned DEFAULT NULL,
  \`slug\` varchar(80) NOT NULL UNIQUE,
  CONSTRAINT \`post_user\` FOREIGN KEY (\`user_id\`) REFERENCES \`user\` (\`id\`) ON DELETE SET NULL ON UPDATE CASCADE,
  CONSTRAINT \`post_slug_len\` CHECK (char_length(\`slug\`) > 2)
) ENGINE=InnoDB;
DELIMITER ;;
/*!50003 CREATE*/ /*!50017 DEFINER=\`root\`@\`localhost\`*/ /*!50003 TRIGGER \`post_bi\` BEFORE INSERT ON \`post\` FOR EACH ROW BEGIN
  IF NEW.slug = '' THEN SET NEW.slug = 'x'; END IF;
END */;;
DELIMITER ;
/*!50001 CREATE ALGORITHM=UNDEFINED */
/*!50013 DEFINER=\`root\`@\`localhost\` SQL SECURITY DEFINER */
/*!50001 VIEW \`v_user\` AS select \`user\`.\`id\` AS \`id\` from \`user\` */;
`;

  it('reads backtick names, unsigned, enums, comments, keys and executable comments', async () => {
    const { model, warnings } = await parseSql(source);
    expect(model.dialect).toBe('mysql');
    expect(model.enums).toEqual([]);
    expect(model.tables.map((t) => [t.schema, t.name, t.kind])).toEqual([
      [null, 'user', 'table'],
      [null, 'post', 'table'],
      [null, 'v_user', 'view'],
    ]);
    const user = table(model, 'user');
    expect(user.comment).toBe('People');
    expect(user.primaryKey).toEqual({ name: 'PRIMARY', columns: ['id'] });
    expect(col(user, 'id')).toMatchObject({ type: 'integer', nativeType: 'int(10) unsigned', autoIncrement: true, nullable: false });
    expect(col(user, 'e`mail')).toMatchObject({ type: 'string', nativeType: 'varchar(255)', maxLength: 255 });
    expect(col(user, 'role')).toMatchObject({
      type: 'enum',
      nativeType: "enum('admin','it''s')",
      enumValues: ['admin', "it's"],
      default: "'admin'",
      comment: 'The "role"',
    });
    // MySQL reports numeric defaults bare, however the file quoted them.
    expect(col(user, 'active')).toMatchObject({ type: 'boolean', nativeType: 'tinyint(1)', default: '1' });
    expect(col(user, 'score')).toMatchObject({ type: 'decimal', precision: 8, scale: 3, default: null, nullable: true });
    // MariaDB's JSON: LONGTEXT plus a json_valid check, read as json like introspection does.
    expect(col(user, 'profile').type).toBe('json');
    expect(user.checks).toEqual([]);
    expect(col(user, 'updated_at')).toMatchObject({ type: 'datetime', nativeType: 'datetime(3)', default: 'CURRENT_TIMESTAMP(3)' });
    expect(col(user, 'label').generated).toEqual({ kind: 'virtual', expression: "concat(`e``mail`,' ',`role`)" });
    expect(user.uniques).toEqual([{ name: 'user_email', columns: ['e`mail'] }]);
    expect(user.indexes).toEqual([
      { name: 'user_email', columns: ['e`mail'], unique: true },
      { name: 'idx_role', columns: ['role', 'e`mail'], unique: false },
    ]);

    const post = table(model, 'post');
    expect(post.primaryKey).toEqual({ name: 'PRIMARY', columns: ['id'] });
    expect(post.foreignKeys).toEqual([
      {
        name: 'post_user',
        columns: ['user_id'],
        referencedSchema: null,
        referencedTable: 'user',
        referencedColumns: ['id'],
        onDelete: 'set null',
        onUpdate: 'cascade',
      },
    ]);
    expect(post.checks).toEqual([{ name: 'post_slug_len', expression: 'char_length(`slug`) > 2' }]);
    // An unnamed unique key is named after its column; InnoDB indexes the foreign key itself.
    expect(post.indexes).toEqual([
      { name: 'slug', columns: ['slug'], unique: true },
      { name: 'post_user', columns: ['user_id'], unique: false },
    ]);

    const messages = warnings.map((w) => w.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        'skipped SET: session settings are not part of the schema model',
        'skipped DROP TABLE: nothing declared above it to drop',
        'skipped LOCK TABLES: not part of the schema model',
        'skipped UNLOCK TABLES: not part of the schema model',
        'skipped CREATE TRIGGER: not part of the schema model',
      ]),
    );
    expect(warnings.find((w) => w.message.startsWith('skipped LOCK'))).toMatchObject(positionOf(source, 'LOCK TABLES'));
  });
});

describe('SQLite DDL', () => {
  const source = `PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE [people] (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  [full name] TEXT NOT NULL COLLATE NOCASE,
  \`kind\` TEXT NOT NULL DEFAULT 'person' CHECK (kind IN ('person', 'robot')),
  born DATE,
  score REAL DEFAULT (0.5),
  photo BLOB,
  UNIQUE ([full name]) ON CONFLICT REPLACE
);
CREATE TABLE pet (
  id INTEGER PRIMARY KEY,
  owner INTEGER REFERENCES people ON DELETE CASCADE,
  nick VARCHAR(20),
  shout TEXT AS (upper(nick)) STORED,
  untyped
);
CREATE TABLE tag (code TEXT NOT NULL PRIMARY KEY, n INTEGER) WITHOUT ROWID;
CREATE TABLE sqlite_sequence(name,seq);
CREATE TRIGGER pet_ai AFTER INSERT ON pet BEGIN
  UPDATE pet SET nick = CASE WHEN new.nick IS NULL THEN 'x' ELSE new.nick END WHERE id = new.id;
END;
CREATE INDEX pet_owner ON pet (owner);
INSERT INTO tag VALUES ('a', 1);
COMMIT;
`;

  it('reads [brackets], AUTOINCREMENT, rowid keys, CHECK enums and skips triggers whole', async () => {
    const { model, warnings } = await parseSql(source);
    expect(model.dialect).toBe('sqlite');
    expect(model.tables.map((t) => t.name)).toEqual(['people', 'pet', 'tag']);
    const people = table(model, 'people');
    expect(col(people, 'id')).toMatchObject({ type: 'integer', autoIncrement: true, nullable: false });
    expect(col(people, 'full name')).toMatchObject({ type: 'text', nullable: false });
    // SQLite has no enum type: a CHECK (col IN (…)) makes one, as introspection reads it.
    expect(col(people, 'kind')).toMatchObject({ type: 'enum', enumValues: ['person', 'robot'], default: "'person'" });
    expect(col(people, 'score')).toMatchObject({ type: 'float', default: '(0.5)' });
    expect(col(people, 'photo').type).toBe('binary');
    expect(people.uniques).toEqual([{ name: null, columns: ['full name'] }]);
    expect(people.schema).toBeNull();

    const pet = table(model, 'pet');
    // INTEGER PRIMARY KEY is the rowid: the database assigns it.
    expect(col(pet, 'id')).toMatchObject({ autoIncrement: true, nullable: false });
    expect(col(pet, 'nick')).toMatchObject({ type: 'string', nativeType: 'varchar(20)', maxLength: 20 });
    expect(col(pet, 'shout').generated).toEqual({ kind: 'stored', expression: 'upper(nick)' });
    expect(col(pet, 'untyped')).toMatchObject({ type: 'other', nativeType: '' });
    expect(pet.foreignKeys).toEqual([
      {
        name: null,
        columns: ['owner'],
        referencedSchema: null,
        referencedTable: 'people',
        referencedColumns: ['id'],
        onDelete: 'cascade',
        onUpdate: 'no action',
      },
    ]);
    expect(pet.indexes).toEqual([{ name: 'pet_owner', columns: ['owner'], unique: false }]);

    const tag = table(model, 'tag');
    expect(col(tag, 'code')).toMatchObject({ autoIncrement: false, nullable: false });
    expect(warnings.map((w) => w.message)).toEqual([
      'skipped PRAGMA foreign_keys: not part of the schema model',
      'skipped BEGIN TRANSACTION: not part of the schema model',
      'skipped CREATE TABLE sqlite_sequence: an internal SQLite table',
      'skipped CREATE TRIGGER pet_ai: not part of the schema model',
      'skipped INSERT INTO tag: not part of the schema model',
      'skipped COMMIT: not part of the schema model',
    ]);
  });
});

describe('dialect detection', () => {
  it('tells the flavours apart by what only they write', () => {
    expect(detectDialect('-- MySQL dump 10.13\nCREATE TABLE `a` (id int);')).toBe('mysql');
    expect(detectDialect('CREATE TABLE a (id int) ENGINE=InnoDB;')).toBe('mysql');
    expect(detectDialect('CREATE TABLE a (id serial, b jsonb);')).toBe('postgres');
    expect(detectDialect('CREATE TABLE a (id INTEGER PRIMARY KEY AUTOINCREMENT);')).toBe('sqlite');
    expect(detectDialect('CREATE TABLE a (id int);')).toBeNull();
  });

  it('reads an undetectable file as PostgreSQL and says so', async () => {
    const { model, warnings } = await parseSql('CREATE TABLE a (id int);');
    expect(model.dialect).toBe('postgres');
    expect(warnings[0]).toEqual({
      line: 1,
      column: 1,
      message: 'the SQL dialect could not be told from the file; read as PostgreSQL (pass dialect to choose)',
    });
  });
});

describe('errors point at the problem', () => {
  it('an unknown referential action', async () => {
    const source = 'CREATE TABLE a (id integer PRIMARY KEY);\nCREATE TABLE b (\n  a_id integer REFERENCES a (id) ON DELETE EXPLODE\n);\n';
    const err = await failure(source, 'postgres');
    expect({ line: err.line, column: err.column }).toEqual(positionOf(source, 'EXPLODE'));
    expect(err.line).toBe(3);
    expect(err.column).toBe(44);
    expect(err.detail).toBe('expected CASCADE, RESTRICT, SET NULL, SET DEFAULT or NO ACTION (found `EXPLODE`)');
  });

  it('an unterminated string, at its opening quote', async () => {
    const source = "CREATE TABLE t (\n  note text DEFAULT 'never closed\n);\n";
    const err = await failure(source, 'postgres');
    expect({ line: err.line, column: err.column }).toEqual({ line: 2, column: 21 });
    expect(err.detail).toBe('unterminated string');
  });

  it('an unclosed parenthesis, at the parenthesis', async () => {
    const err = await failure('CREATE TABLE t (id int;\n', 'sqlite');
    expect({ line: err.line, column: err.column, detail: err.detail }).toEqual({
      line: 1,
      column: 16,
      detail: 'unbalanced parenthesis: this group is never closed (found `(`)',
    });
  });

  it('an unterminated comment and dollar quote', async () => {
    expect(await failure('SELECT 1;\n  /* open', 'postgres')).toMatchObject({ line: 2, column: 3, detail: 'unterminated /* comment' });
    expect(await failure('CREATE FUNCTION f() AS $x$ body', 'postgres')).toMatchObject({
      line: 1,
      column: 24,
      detail: 'unterminated dollar-quoted string $x$',
    });
  });

  it('an empty column definition and a repeated column', async () => {
    expect(await failure('CREATE TABLE t (id int,, b int);', 'postgres')).toMatchObject({ line: 1, column: 17 });
    expect(await failure('CREATE TABLE t (\n  id int,\n  id text\n);', 'postgres')).toMatchObject({
      line: 3,
      column: 3,
      detail: 'column id is declared twice (found `id`)',
    });
  });
});

describe('what the model cannot hold', () => {
  it('warns about partial indexes and keeps them out of uniques', async () => {
    const { model, warnings } = await parseSql('CREATE TABLE t (a int, b int);\nCREATE UNIQUE INDEX t_a ON t (a) WHERE b > 0;', 'postgres');
    expect(model.tables[0]!.indexes).toEqual([{ name: 't_a', columns: ['a'], unique: true }]);
    expect(model.tables[0]!.uniques).toEqual([]);
    expect(warnings).toEqual([{ line: 2, column: 34, message: 'index t_a on t is partial; its WHERE clause is not part of the schema model' }]);
  });

  it('warns about a foreign key to a table the file does not declare', async () => {
    const source = 'CREATE TABLE t (\n  a int REFERENCES elsewhere (id)\n);';
    const { warnings } = await parseSql(source, 'postgres');
    expect(warnings).toEqual([{ line: 2, column: 9, message: 'table t references table elsewhere, which this file does not declare' }]);
  });

  it('skips CREATE TABLE AS and composite types with a warning', async () => {
    const { model, warnings } = await parseSql('CREATE TABLE copy AS SELECT 1;\nCREATE TYPE pair AS (a int, b int);', 'postgres');
    expect(model.tables).toEqual([]);
    expect(warnings.map((w) => w.message)).toEqual([
      'skipped CREATE TABLE copy AS SELECT: the columns are not written in the file',
      'skipped CREATE TYPE pair: only enum types are part of the schema model',
    ]);
  });
});
