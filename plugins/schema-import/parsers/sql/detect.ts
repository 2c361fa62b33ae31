import type { SqlDialect } from './tokenizer.js';

/** Signals that only one dialect's DDL (or dump tool) produces, each with a weight. */
const SIGNALS: Record<SqlDialect, Array<[RegExp, number]>> = {
  postgres: [
    [/PostgreSQL database dump/i, 10],
    [/\bpg_catalog\./i, 5],
    [/\bOWNER TO\b/i, 5],
    [/\$\$/, 3],
    [/::[a-z]/i, 3],
    [/\b(BIG|SMALL)?SERIAL\b/i, 3],
    [/\bAS\s+ENUM\b/i, 4],
    [/\b(JSONB|BYTEA|TIMESTAMPTZ|TIMETZ|CITEXT|INET|UUID)\b/i, 2],
    [/\bWITH(OUT)? TIME ZONE\b/i, 3],
    [/\bGENERATED\s+(ALWAYS|BY DEFAULT)\s+AS\s+IDENTITY\b/i, 3],
    [/\bCREATE\s+(OR\s+REPLACE\s+)?FUNCTION\b[\s\S]{0,400}?\bLANGUAGE\b/i, 2],
    [/^\\(restrict|connect|unrestrict)\b/m, 10],
  ],
  mysql: [
    [/MySQL dump|MariaDB dump/i, 10],
    [/\/\*![0-9]{5}/, 6],
    [/`/, 3],
    [/\bAUTO_INCREMENT\b/i, 4],
    [/\bENGINE\s*=/i, 5],
    [/\bDEFAULT CHARSET\b/i, 4],
    [/\bUNSIGNED\b/i, 2],
    [/\bLOCK TABLES\b/i, 4],
    [/\b(TINYINT|MEDIUMINT|MEDIUMTEXT|LONGTEXT|LONGBLOB|TINYTEXT)\b/i, 2],
    [/^\s*DELIMITER\b/im, 4],
    [/\bENUM\s*\(/i, 1],
  ],
  sqlite: [
    [/\bAUTOINCREMENT\b/i, 6],
    [/\bWITHOUT ROWID\b/i, 6],
    [/\bPRAGMA\b/i, 5],
    [/\)\s*STRICT\s*;/i, 5],
    [/\bsqlite_sequence\b/i, 8],
    [/\bON CONFLICT\s+(ROLLBACK|ABORT|FAIL|IGNORE|REPLACE)\b/i, 4],
    [/\[[A-Za-z_][^\]\n]{0,64}\]\s+[A-Za-z]/, 2],
  ],
};

/** Guesses the dialect of a DDL file from the first megabyte; null when nothing stands out. */
export function detectDialect(source: string): SqlDialect | null {
  const head = source.length > 1_048_576 ? source.slice(0, 1_048_576) : source;
  let best: SqlDialect | null = null;
  let bestScore = 0;
  let tie = false;
  for (const dialect of ['postgres', 'mysql', 'sqlite'] as const) {
    const score = SIGNALS[dialect].reduce((sum, [re, weight]) => sum + (re.test(head) ? weight : 0), 0);
    if (score > bestScore) {
      best = dialect;
      bestScore = score;
      tie = false;
    } else if (score === bestScore && score > 0) tie = true;
  }
  return tie ? null : best;
}
