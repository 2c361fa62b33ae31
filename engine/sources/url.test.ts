import { describe, expect, it } from 'vitest';
import { describeTarget, parseSourceUrl } from './url.js';

const ok = (dialect: 'postgres' | 'mysql' | 'sqlite', url: string) => {
  const r = parseSourceUrl(dialect, url);
  if (!r.ok) throw new Error(`refused ${url}: ${r.message}`);
  return r.target;
};
const refused = (dialect: 'postgres' | 'mysql' | 'sqlite', url: string) => {
  const r = parseSourceUrl(dialect, url);
  if (r.ok) throw new Error(`accepted ${url}`);
  return r.message;
};

describe('parseSourceUrl', () => {
  it('reads PostgreSQL URLs, with the default port and decoded credentials', () => {
    expect(ok('postgres', 'postgres://app:p%40ss%2Fword@db.example.com/shop')).toEqual({
      dialect: 'postgres',
      host: 'db.example.com',
      port: 5432,
      database: 'shop',
      user: 'app',
      password: 'p@ss/word',
      tls: 'disable',
    });
    expect(ok('postgres', 'postgresql://[::1]:6543/my%20db?sslmode=verify-full')).toMatchObject({
      host: '::1',
      port: 6543,
      database: 'my db',
      user: null,
      password: null,
      tls: 'verify-full',
    });
  });

  it('reads MySQL and MariaDB URLs', () => {
    expect(ok('mysql', 'mysql://root@127.0.0.1/shop')).toMatchObject({ dialect: 'mysql', port: 3306, user: 'root', password: null });
    expect(ok('mysql', 'mariadb://u:x@h:3307/shop?sslmode=require')).toMatchObject({ port: 3307, tls: 'require' });
  });

  it('reads SQLite URLs naming an absolute path', () => {
    expect(ok('sqlite', 'sqlite:/var/data/app.db')).toEqual({ dialect: 'sqlite', file: '/var/data/app.db' });
    expect(ok('sqlite', 'sqlite:///var/data/app.db')).toEqual({ dialect: 'sqlite', file: '/var/data/app.db' });
    expect(ok('sqlite', 'sqlite:/data/with space.db')).toEqual({ dialect: 'sqlite', file: '/data/with space.db' });
  });

  it('refuses what it cannot use, saying why, never repeating the URL or password', () => {
    const cases: Array<['postgres' | 'mysql' | 'sqlite', string]> = [
      ['postgres', 'mysql://u:hunter2@h/db'],
      ['mysql', 'postgres://u:hunter2@h/db'],
      ['postgres', 'postgres://u:hunter2@h'],
      ['postgres', 'postgres://u:hunter2@h/'],
      ['postgres', 'postgres://u:hunter2@h/a/b'],
      ['postgres', 'postgres://u:hunter2@h:0/db'],
      ['postgres', 'postgres://u:hunter2@/db'],
      ['postgres', 'not a url hunter2'],
      ['postgres', 'postgres://u:hunter2@h/db?sslrootcert=/etc/passwd'],
      ['postgres', 'postgres://u:hunter2@h/db?host=/var/run/postgresql'],
      ['mysql', 'mysql://u:hunter2@h/db?multipleStatements=true'],
      ['mysql', 'mysql://u:hunter2@h/db?sslmode=prefer'],
      ['postgres', 'postgres://u:hunter2@h/db#frag'],
      ['postgres', 'postgres://u:%E0%A4%Ahunter2@h/db'],
      ['sqlite', 'sqlite:hunter2.db'],
      ['sqlite', 'sqlite://host/hunter2.db'],
      ['sqlite', 'file:/tmp/hunter2.db'],
      ['sqlite', 'sqlite:/tmp/hunter2/'],
      ['sqlite', 'sqlite:/tmp/hunter2\u0000.db'],
      ['postgres', `postgres://u:hunter2@h/${'x'.repeat(5000)}`],
    ];
    for (const [dialect, url] of cases) {
      const message = refused(dialect, url);
      expect(message.length, url).toBeGreaterThan(5);
      expect(message, url).not.toContain('hunter2');
    }
  });

  it('describes a target without its password', () => {
    const described = describeTarget(ok('postgres', 'postgres://app:secret-pw@h:5433/shop?sslmode=require'));
    expect(described).toEqual({ host: 'h', port: 5433, database: 'shop', user: 'app', tls: 'require' });
    expect(describeTarget(ok('sqlite', 'sqlite:/a/b.db'))).toEqual({ host: null, port: null, database: '/a/b.db', user: null, tls: null });
  });
});
