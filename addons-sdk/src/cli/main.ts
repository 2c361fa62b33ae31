import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PackageError } from '../package/errors.js';
import { checkAddon, CheckFailed, formatProblem } from './check.js';
import { DEFAULT_DEV_PORT, DevError, startDev } from './dev.js';
import { DevOriginInvalid, parseDevOrigin } from './dev-outbound.js';
import { initAddon, InitRefused } from './init.js';
import { packAddon } from './pack.js';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  cwd: string;
}

const defaultIo = (): CliIo => ({
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  cwd: process.cwd(),
});

export const HELP = `svc-addon: build, check and pack add-ons for svc-admin

Usage:
  svc-addon init [dir] [--key <key>]   write a working add-on into a new or empty folder
  svc-addon check [dir]                check the manifest, the package rules, hooks, actions and surfaces
  svc-addon pack [dir] [--out <file>]  check, bundle server.ts and write <key>-<version>.tgz
  svc-addon dev [dir] [--port <n>] [--instance <folder>] [--allow-outbound <origin>]...
                                       run a local svc-admin with the add-on installed on a SQLite
                                       connection, and reinstall it on every change (Ctrl-C stops).
                                       Its data lives in <dir>/.svc-dev/ and is disposable.
                                       --port: default ${DEFAULT_DEV_PORT}, 0 picks a free one.
                                       --instance: the svc-admin folder (default: SVC_ADMIN_DIR,
                                       else found by walking up from dir and from this SDK)
                                       --allow-outbound: an origin (http://127.0.0.1:4010) the
                                       add-on's ctx.fetch may reach although it is local or not in
                                       outbound (a mock server); repeatable; dev only, needs the
                                       instance's sources
  svc-addon --help

dir defaults to the current folder. Exit codes: 0 done, 1 the add-on has problems, 2 usage.`;

/** The svc-addon command line. Returns the exit code; never calls process.exit. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.err(`svc-addon: ${(error as Error).message}`);
    io.err('Run svc-addon --help for usage.');
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, dirArg, ...rest] = positionals;
  if (values.help || command === 'help') {
    io.out(HELP);
    return 0;
  }
  if (!command) {
    io.err(HELP);
    return 2;
  }
  if (rest.length) {
    io.err(`svc-addon ${command}: unexpected argument ${rest[0]}`);
    return 2;
  }
  if (command !== 'dev' && (values.port !== undefined || values.instance !== undefined || values['allow-outbound'] !== undefined))
    return usage(io, '--port, --instance and --allow-outbound are for dev');
  const dir = resolve(io.cwd, dirArg ?? '.');
  const shown = (path: string): string => relative(io.cwd, path) || '.';
  try {
    switch (command) {
      case 'init': {
        if (values.out !== undefined) return usage(io, '--out is for pack');
        const made = await initAddon(dir, values.key);
        io.out(`Wrote add-on ${made.key} in ${shown(made.dir)}: ${made.files.join(', ')}`);
        // npm run takes the bin of the SDK just installed, never a package of that name from the registry.
        io.out(`Next: cd ${shown(made.dir)} && npm install && npm run check`);
        io.out('Then: npm test (server.test.ts), npm run dev (a local instance), npm run pack (the package).');
        return 0;
      }
      case 'check': {
        if (values.key !== undefined || values.out !== undefined) return usage(io, 'check takes only a folder');
        const checked = await checkAddon(dir);
        for (const w of checked.warnings) io.err(`warning: ${w}`);
        io.out(`${checked.manifest.key} ${checked.manifest.version}: ok`);
        return 0;
      }
      case 'pack': {
        if (values.key !== undefined) return usage(io, '--key is for init');
        const packed = await packAddon(dir, values.out === undefined ? undefined : resolve(io.cwd, values.out));
        for (const w of packed.warnings) io.err(`warning: ${w}`);
        io.out(`${shown(packed.file)}  sha256 ${packed.sha256}  ${packed.bytes} bytes`);
        return 0;
      }
      case 'dev': {
        if (values.key !== undefined || values.out !== undefined) return usage(io, 'dev takes a folder, --port, --instance and --allow-outbound');
        let port: number | undefined;
        if (values.port !== undefined) {
          if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) return usage(io, '--port must be a whole number from 0 to 65535');
          port = Number(values.port);
        }
        const allowOutbound: string[] = [];
        for (const value of values['allow-outbound'] ?? []) {
          try {
            allowOutbound.push(parseDevOrigin(value));
          } catch (error) {
            if (error instanceof DevOriginInvalid) return usage(io, error.message);
            throw error;
          }
        }
        return await runDev(io, dir, port, values.instance === undefined ? undefined : resolve(io.cwd, values.instance), allowOutbound);
      }
      default:
        return usage(io, `unknown command ${command}`);
    }
  } catch (error) {
    if (error instanceof CheckFailed) {
      for (const p of error.problems) io.err(formatProblem(p));
      return 1;
    }
    if (error instanceof PackageError) {
      io.err(`package: ${error.reason}${error.path ? ` (${error.path})` : ''}: ${error.message}`);
      return 1;
    }
    if (error instanceof DevError) {
      io.err(`svc-addon dev: ${error.message}`);
      return 1;
    }
    if (error instanceof InitRefused) {
      io.err(`svc-addon init: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      key: { type: 'string' },
      out: { type: 'string', short: 'o' },
      port: { type: 'string', short: 'p' },
      instance: { type: 'string' },
      'allow-outbound': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** Runs dev until SIGINT or SIGTERM (or the instance stops by itself); 0 when stopped by a signal. */
async function runDev(io: CliIo, dir: string, port: number | undefined, instance: string | undefined, allowOutbound: string[]): Promise<number> {
  const session = await startDev({
    dir,
    ...(port === undefined ? {} : { port }),
    ...(instance === undefined ? {} : { instance }),
    allowOutbound,
    out: io.out,
    err: io.err,
  });
  return new Promise<number>((done) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      io.out(`svc-addon dev: ${signal}, stopping the instance…`);
      void session.stop().then(() => done(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    void session.exited.then(() => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (!stopping) void session.stop().then(() => done(1));
    });
  });
}

function usage(io: CliIo, message: string): number {
  io.err(`svc-addon: ${message}`);
  io.err('Run svc-addon --help for usage.');
  return 2;
}
