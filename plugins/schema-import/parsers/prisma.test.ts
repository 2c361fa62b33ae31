import { describe, expect, it } from 'vitest';
import { schemaModelSchema, type Table } from '../../../engine/schema/model.js';
import { SchemaParseError } from './diagnostics.js';
import { newColumn } from './model.js';
import { parsePrisma } from './prisma.js';

/** A shop and blog schema: 22 models, the attributes Prisma users write. */
const SHOP = `
// The shop's schema
datasource db {
  provider = "postgresql"
  url      = env("DATABASE_URL")
}

generator client {
  provider = "prisma-client-js"
}

enum Role {
  CUSTOMER
  STAFF @map("staff")
  ADMIN

  @@map("user_role")
}

enum OrderStatus {
  PENDING
  PAID
  SHIPPED
}

/// A person who can sign in.
model User {
  id        Int       @id @default(autoincrement())
  email     String    @unique @db.VarChar(255)
  name      String?
  role      Role      @default(CUSTOMER)
  active    Boolean   @default(true)
  createdAt DateTime  @default(now()) @map("created_at")
  updatedAt DateTime  @updatedAt @map("updated_at")
  profile   Profile?
  orders    Order[]
  posts     Post[]
  sessions  Session[]

  @@map("users")
}

model Profile {
  id     String @id @default(uuid()) @db.Uuid
  userId Int    @unique @map("user_id")
  bio    String @default("")
  avatar Bytes?
  user   User   @relation(fields: [userId], references: [id], onDelete: Cascade)
}

model Session {
  token     String   @id
  userId    Int
  expiresAt DateTime @db.Timestamptz(6)
  user      User     @relation(fields: [userId], references: [id], onDelete: Cascade, onUpdate: NoAction)

  @@index([userId])
}

model Category {
  id       Int        @id @default(autoincrement())
  parentId Int?
  slug     String
  parent   Category?  @relation("Tree", fields: [parentId], references: [id])
  children Category[] @relation("Tree")
  products Product[]

  @@unique([parentId, slug])
}

model Product {
  id         Int          @id @default(autoincrement())
  sku        String       @unique @db.Char(12)
  name       String
  price      Decimal      @db.Decimal(10, 2)
  weight     Float?
  stock      BigInt       @default(0)
  attributes Json?
  categoryId Int?
  category   Category?    @relation(fields: [categoryId], references: [id], onDelete: SetNull)
  items      OrderItem[]
  tags       ProductTag[]
  reviews    Review[]
  prices     PriceHistory[]

  @@index([categoryId, name(sort: Desc)], map: "product_category_name")
}

model Order {
  id        Int         @id @default(autoincrement())
  userId    Int
  status    OrderStatus @default(PENDING)
  total     Decimal     @default(0) @db.Decimal(12, 2)
  placedAt  DateTime    @default(now())
  user      User        @relation(fields: [userId], references: [id], onDelete: Restrict)
  items     OrderItem[]
  payments  Payment[]
  shipments Shipment[]
}

model OrderItem {
  orderId   Int
  lineNo    Int      @db.SmallInt
  productId Int
  quantity  Int      @default(1)
  order     Order    @relation(fields: [orderId], references: [id], onDelete: Cascade)
  product   Product  @relation(fields: [productId], references: [id], onUpdate: Cascade)

  @@id([orderId, lineNo])
  @@index([productId])
}

model Tag {
  id       Int          @id @default(autoincrement())
  label    String       @unique
  products ProductTag[]
}

model ProductTag {
  productId Int
  tagId     Int
  product   Product @relation(fields: [productId], references: [id], onDelete: Cascade)
  tag       Tag     @relation(fields: [tagId], references: [id], onDelete: Cascade)

  @@id([productId, tagId], map: "product_tag_pk")
}

model Payment {
  id        String   @id @default(cuid())
  orderId   Int
  amount    Decimal
  reference String   @unique @default(dbgenerated("gen_random_uuid()")) @db.Uuid
  raw       Json     @default("{}")
  order     Order    @relation(fields: [orderId], references: [id])
}

model Shipment {
  id        Int      @id @default(autoincrement())
  orderId   Int
  carrier   String   @db.VarChar(40)
  shippedAt DateTime?
  order     Order    @relation(fields: [orderId], references: [id], onDelete: Cascade)
}

model Review {
  id        Int      @id @default(autoincrement())
  productId Int
  authorId  Int?
  rating    Int      @db.SmallInt
  product   Product  @relation(fields: [productId], references: [id], onDelete: Cascade)

  @@unique([productId, authorId], name: "one_review_each")
}

model PriceHistory {
  productId Int
  validFrom DateTime @db.Date
  price     Decimal  @db.Decimal(10, 2)
  product   Product  @relation(fields: [productId], references: [id], onDelete: Cascade)

  @@id([productId, validFrom])
}

model Warehouse {
  code   String       @id @db.Char(4)
  name   String
  stocks StockLevel[]
}

model StockLevel {
  productId     Int
  warehouseCode String    @map("warehouse_code") @db.Char(4)
  takenOn       DateTime  @db.Date
  quantity      Int       @default(0)
  warehouse     Warehouse @relation(fields: [warehouseCode], references: [code], onUpdate: Cascade, onDelete: NoAction)

  @@id([productId, warehouseCode, takenOn])
  @@map("stock_levels")
}

model Post {
  id        Int       @id @default(autoincrement())
  authorId  Int
  title     String
  slug      String    @unique(map: "post_slug_unique")
  published Boolean   @default(false)
  tags      String[]
  author    User      @relation(fields: [authorId], references: [id])
  comments  Comment[]
}

model Comment {
  id       Int      @id @default(autoincrement())
  postId   Int
  parentId Int?
  body     String
  post     Post     @relation(fields: [postId], references: [id], onDelete: Cascade)
  parent   Comment? @relation("Thread", fields: [parentId], references: [id])
  replies  Comment[] @relation("Thread")
}

model Setting {
  key   String @id
  value Json
}

model AuditEvent {
  id         BigInt   @id @default(autoincrement())
  sequenceNo BigInt   @unique
  action     String
  payload    Json
  at         DateTime @default(now())
}

model Coupon {
  code      String   @id
  percent   Int
  validTo   DateTime?
  maxUses   Int      @default(100)
}

model Newsletter {
  email      String   @id
  confirmed  Boolean  @default(false)
  token      String?  @unique
}

model Translation {
  locale String
  key    String
  text   String

  @@id([locale, key])
  @@index([key])
}
`;

/** The 1-based line and column of the first occurrence of `needle`. */
function positionOf(source: string, needle: string): { line: number; column: number } {
  const before = source.slice(0, source.indexOf(needle)).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

const byName = (tables: Table[], name: string) => {
  const t = tables.find((x) => x.name === name);
  if (!t) throw new Error(`no table ${name}`);
  return t;
};

describe('Prisma schema', () => {
  const { model, warnings } = parsePrisma(SHOP);

  it('is a valid schema model of 22 tables', () => {
    expect(schemaModelSchema.safeParse(model).success).toBe(true);
    expect(model.dialect).toBe('postgres');
    expect(model.tables).toHaveLength(22);
    expect(model.tables.every((t) => t.schema === 'public' && t.kind === 'table')).toBe(true);
    expect(model.tables.map((t) => t.name)).toEqual(expect.arrayContaining(['users', 'Profile', 'stock_levels', 'OrderItem', 'Translation']));
  });

  it('reads enums with their mapped names and values', () => {
    expect(model.enums).toEqual([
      { schema: 'public', name: 'user_role', values: ['CUSTOMER', 'staff', 'ADMIN'] },
      { schema: 'public', name: 'OrderStatus', values: ['PENDING', 'PAID', 'SHIPPED'] },
    ]);
  });

  it('reaches the exact table for a model with @map, enums, defaults and @updatedAt', () => {
    expect(byName(model.tables, 'users')).toEqual({
      schema: 'public',
      name: 'users',
      kind: 'table',
      columns: [
        newColumn('id', { type: 'integer', nativeType: 'integer', nullable: false, autoIncrement: true }),
        newColumn('email', { type: 'string', nativeType: 'character varying(255)', nullable: false, maxLength: 255 }),
        newColumn('name', { type: 'text', nativeType: 'text', nullable: true }),
        newColumn('role', { type: 'enum', nativeType: 'user_role', nullable: false, default: "'CUSTOMER'", enumValues: ['CUSTOMER', 'staff', 'ADMIN'] }),
        newColumn('active', { type: 'boolean', nativeType: 'boolean', nullable: false, default: 'true' }),
        newColumn('created_at', { type: 'datetime', nativeType: 'timestamp(3) without time zone', nullable: false, default: 'CURRENT_TIMESTAMP' }),
        // @updatedAt is set by Prisma Client: no database default.
        newColumn('updated_at', { type: 'datetime', nativeType: 'timestamp(3) without time zone', nullable: false }),
      ],
      primaryKey: { name: 'users_pkey', columns: ['id'] },
      foreignKeys: [],
      uniques: [{ name: 'users_email_key', columns: ['email'] }],
      indexes: [{ name: 'users_email_key', columns: ['email'], unique: true }],
      checks: [],
      rowEstimate: null,
      comment: null,
    });
  });

  it('reads composite primary keys, with and without a map', () => {
    expect(byName(model.tables, 'OrderItem').primaryKey).toEqual({ name: 'OrderItem_pkey', columns: ['orderId', 'lineNo'] });
    expect(byName(model.tables, 'ProductTag').primaryKey).toEqual({ name: 'product_tag_pk', columns: ['productId', 'tagId'] });
    expect(byName(model.tables, 'stock_levels').primaryKey).toEqual({ name: 'stock_levels_pkey', columns: ['productId', 'warehouse_code', 'takenOn'] });
    expect(byName(model.tables, 'Translation').primaryKey).toEqual({ name: 'Translation_pkey', columns: ['locale', 'key'] });
  });

  it('reads foreign keys with their actions and Prisma’s defaults', () => {
    const fk = (table: string) => byName(model.tables, table).foreignKeys;
    expect(fk('Profile')).toEqual([
      {
        name: 'Profile_user_id_fkey',
        columns: ['user_id'],
        referencedSchema: 'public',
        referencedTable: 'users',
        referencedColumns: ['id'],
        onDelete: 'cascade',
        onUpdate: 'cascade',
      },
    ]);
    expect(fk('Session')[0]).toMatchObject({ onDelete: 'cascade', onUpdate: 'no action' });
    // No actions given: Restrict for a required relation, SetNull for an optional one; updates cascade.
    expect(fk('Payment')[0]).toMatchObject({ columns: ['orderId'], referencedTable: 'Order', onDelete: 'restrict', onUpdate: 'cascade' });
    expect(fk('Category')[0]).toMatchObject({
      name: 'Category_parentId_fkey',
      columns: ['parentId'],
      referencedTable: 'Category',
      onDelete: 'set null',
      onUpdate: 'cascade',
    });
    expect(fk('Product')[0]).toMatchObject({ onDelete: 'set null', onUpdate: 'cascade' });
    expect(fk('Order')[0]).toMatchObject({ referencedTable: 'users', onDelete: 'restrict' });
    expect(fk('OrderItem')).toEqual([
      {
        name: 'OrderItem_orderId_fkey',
        columns: ['orderId'],
        referencedSchema: 'public',
        referencedTable: 'Order',
        referencedColumns: ['id'],
        onDelete: 'cascade',
        onUpdate: 'cascade',
      },
      {
        name: 'OrderItem_productId_fkey',
        columns: ['productId'],
        referencedSchema: 'public',
        referencedTable: 'Product',
        referencedColumns: ['id'],
        onDelete: 'restrict',
        onUpdate: 'cascade',
      },
    ]);
    expect(fk('stock_levels')).toEqual([
      {
        name: 'stock_levels_warehouse_code_fkey',
        columns: ['warehouse_code'],
        referencedSchema: 'public',
        referencedTable: 'Warehouse',
        referencedColumns: ['code'],
        onDelete: 'no action',
        onUpdate: 'cascade',
      },
    ]);
    // The side without `fields` holds no key.
    expect(fk('users')).toEqual([]);
    expect(fk('Comment').map((f) => f.columns[0])).toEqual(['postId', 'parentId']);
  });

  it('reads uniques and indexes with Prisma’s names', () => {
    expect(byName(model.tables, 'Category').uniques).toEqual([{ name: 'Category_parentId_slug_key', columns: ['parentId', 'slug'] }]);
    expect(byName(model.tables, 'Review').uniques).toEqual([{ name: 'Review_productId_authorId_key', columns: ['productId', 'authorId'] }]);
    expect(byName(model.tables, 'Post').uniques).toEqual([{ name: 'post_slug_unique', columns: ['slug'] }]);
    expect(byName(model.tables, 'Product').indexes).toEqual([
      { name: 'Product_sku_key', columns: ['sku'], unique: true },
      { name: 'product_category_name', columns: ['categoryId', 'name'], unique: false },
    ]);
    expect(byName(model.tables, 'Session').indexes).toEqual([{ name: 'Session_userId_idx', columns: ['userId'], unique: false }]);
    expect(byName(model.tables, 'Translation').indexes).toEqual([{ name: 'Translation_key_idx', columns: ['key'], unique: false }]);
  });

  it('maps scalar and native types, defaults and lists', () => {
    const c = (table: string, column: string) => byName(model.tables, table).columns.find((x) => x.name === column)!;
    expect(c('Profile', 'id')).toMatchObject({ type: 'uuid', nativeType: 'uuid', default: null });
    expect(c('Profile', 'bio')).toMatchObject({ type: 'text', default: "''" });
    expect(c('Profile', 'avatar')).toMatchObject({ type: 'binary', nativeType: 'bytea', nullable: true });
    expect(c('Session', 'expiresAt')).toMatchObject({ type: 'datetime', nativeType: 'timestamp(6) with time zone' });
    expect(c('Product', 'sku')).toMatchObject({ type: 'string', nativeType: 'character(12)', maxLength: 12 });
    expect(c('Product', 'price')).toMatchObject({ type: 'decimal', nativeType: 'numeric(10,2)', precision: 10, scale: 2 });
    expect(c('Payment', 'amount')).toMatchObject({ type: 'decimal', nativeType: 'numeric(65,30)', precision: 65, scale: 30 });
    expect(c('Product', 'weight')).toMatchObject({ type: 'float', nativeType: 'double precision', nullable: true });
    expect(c('Product', 'stock')).toMatchObject({ type: 'bigint', default: '0' });
    expect(c('Product', 'attributes')).toMatchObject({ type: 'json', nativeType: 'jsonb' });
    expect(c('Order', 'status')).toMatchObject({ type: 'enum', nativeType: 'OrderStatus', default: "'PENDING'" });
    expect(c('Payment', 'reference')).toMatchObject({ type: 'uuid', default: 'gen_random_uuid()' });
    expect(c('Payment', 'raw')).toMatchObject({ type: 'json', default: "'{}'" });
    expect(c('Post', 'tags')).toMatchObject({ type: 'other', nativeType: 'text[]' });
    expect(c('AuditEvent', 'id')).toMatchObject({ type: 'bigint', nativeType: 'bigint', autoIncrement: true });
    expect(c('OrderItem', 'lineNo')).toMatchObject({ type: 'integer', nativeType: 'smallint' });
    expect(c('PriceHistory', 'validFrom')).toMatchObject({ type: 'date', nativeType: 'date' });
  });

  it('warns where Prisma Client, not the database, fills a value', () => {
    expect(warnings).toEqual([
      { ...positionOf(SHOP, 'uuid()'), message: '@default(uuid()) on id is filled by Prisma Client, not by the database; the column has no database default' },
      { ...positionOf(SHOP, 'cuid()'), message: '@default(cuid()) on id is filled by Prisma Client, not by the database; the column has no database default' },
    ]);
  });
});

describe('Prisma providers', () => {
  it('spells MySQL types and enums on the column', () => {
    const { model } = parsePrisma(
      `datasource db {\n  provider = "mysql"\n  url = env("X")\n}\nenum Kind {\n  A\n  B\n}\nmodel T {\n  id Int @id @default(autoincrement())\n  kind Kind\n  ok Boolean\n  name String\n  n Int @db.UnsignedInt\n}\n`,
    );
    expect(model.dialect).toBe('mysql');
    expect(model.enums).toEqual([]);
    const t = model.tables[0]!;
    expect(t.schema).toBeNull();
    expect(t.primaryKey).toEqual({ name: 'PRIMARY', columns: ['id'] });
    expect(t.columns.map((c) => [c.name, c.type, c.nativeType])).toEqual([
      ['id', 'integer', 'int'],
      ['kind', 'enum', "enum('A','B')"],
      ['ok', 'boolean', 'tinyint(1)'],
      ['name', 'string', 'varchar(191)'],
      ['n', 'integer', 'int unsigned'],
    ]);
  });

  it('spells SQLite types', () => {
    const { model } = parsePrisma(
      'datasource db {\n  provider = "sqlite"\n  url = "file:dev.db"\n}\nmodel T {\n  id Int @id @default(autoincrement())\n  at DateTime\n}\n',
    );
    expect(model.dialect).toBe('sqlite');
    expect(model.tables[0]!.columns.map((c) => [c.type, c.nativeType])).toEqual([
      ['integer', 'integer'],
      ['datetime', 'datetime'],
    ]);
  });

  it('refuses a provider it cannot read', () => {
    expect(() => parsePrisma('datasource db {\n  provider = "mongodb"\n  url = "x"\n}\n')).toThrow('line 2, column 14: provider mongodb is not supported');
  });
});

describe('malformed Prisma schemas', () => {
  const error = (source: string): SchemaParseError => {
    try {
      parsePrisma(source);
    } catch (err) {
      if (err instanceof SchemaParseError) return err;
      throw err;
    }
    throw new Error('no error');
  };

  it('a field without a type, at the end of its line', () => {
    const err = error('model User {\n  id Int @id\n  email\n}\n');
    expect([err.line, err.column, err.detail]).toEqual([3, 8, 'expected the type of field email (found the end of the line)']);
  });

  it('a block that is never closed, at its brace', () => {
    const err = error('model User {\n  id Int @id\n');
    expect([err.line, err.column, err.detail]).toEqual([1, 12, 'the model User block opened here is never closed (found `{`)']);
  });

  it('an unknown type', () => {
    const err = error('model User {\n  id Int @id\n  home Adress\n}\n');
    expect([err.line, err.column, err.detail]).toEqual([3, 3, 'field home has type Adress, which is neither a scalar type, an enum nor a model']);
  });

  it('a relation naming a field that does not exist', () => {
    const err = error('model A {\n  id Int @id\n  b B @relation(fields: [bId], references: [id])\n}\nmodel B {\n  id Int @id\n}\n');
    expect([err.line, err.column]).toEqual([3, 26]);
    expect(err.detail).toBe('@relation fields names bId, which is not a scalar field of A');
  });

  it('text that is not a block', () => {
    const err = error('model A {\n  id Int @id\n}\nmodle B {}\n');
    expect([err.line, err.column]).toEqual([4, 1]);
  });
});
