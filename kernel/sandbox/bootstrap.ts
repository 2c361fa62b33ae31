/**
 * The script every fresh context of an add-on isolate runs before the add-on's module. It runs
 * while the context's built-ins are still pristine, keeps what it needs of them in its closure,
 * and evaluates to `setup(hostRef, logRef, metaJson)`, which builds the add-on's `ctx` and
 * returns `run(namespace, inputJson)`.
 *
 * The two ivm.References (host calls and logs) live only in this closure: nothing puts them on
 * globalThis, and the add-on's functions receive plain closures (`ctx.db.list` …) whose
 * `constructor` is the isolate's own Function. Every value that leaves is a JSON string made by
 * the JSON.stringify kept here; every value that arrives is a JSON string parsed by the kept
 * JSON.parse, so a fresh object per call. The option objects given to isolated-vm have no
 * prototype and are frozen, so an add-on that sets `Object.prototype.arguments` or `.result`
 * cannot change how values are transferred.
 */
export const BOOTSTRAP_SOURCE = String.raw`(function () {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const freeze = Object.freeze;
  const keys = Object.keys;
  const create = Object.create;
  const hasOwn = Object.prototype.hasOwnProperty;
  const call = Function.prototype.call;
  const StringFn = String;
  const ErrorFn = Error;
  const TypeErrorFn = TypeError;
  const RangeErrorFn = RangeError;
  const PromiseFn = Promise;
  const reject = Promise.reject.bind(Promise);
  const then = Promise.prototype.then;
  const slice = String.prototype.slice;
  const owns = (o, k) => call.call(hasOwn, o, k);
  const options = (o) => {
    const out = create(null);
    for (const k of keys(o)) out[k] = o[k] !== null && typeof o[k] === 'object' ? options(o[k]) : o[k];
    return freeze(out);
  };
  const APPLY_PROMISE = options({ arguments: { copy: true }, result: { promise: true, copy: true } });
  const APPLY_IGNORED = options({ arguments: { copy: true } });
  const deepFreeze = (v) => {
    if (v !== null && typeof v === 'object') {
      for (const k of keys(v)) deepFreeze(v[k]);
      freeze(v);
    }
    return v;
  };
  const messageOf = (e) => {
    try {
      const m = e !== null && typeof e === 'object' && 'message' in e ? e.message : e;
      return call.call(slice, StringFn(m), 0, 500);
    } catch {
      return 'error';
    }
  };
  // A V8 console without an inspector prints nowhere; ctx.log is the add-on's log.
  delete globalThis.console;
  // WebAssembly memory lives outside the isolate's heap, where memoryLimit does not count it (40 MiB
  // under a 16 MiB limit got through): the sandbox offers no WebAssembly.
  delete globalThis.WebAssembly;
  return function setup(hostRef, logRef, metaJson) {
    const meta = parse(metaJson);
    const hostCall = (capability, method, args) => {
      let argsJson;
      try {
        argsJson = stringify(args);
      } catch (e) {
        return reject(new TypeErrorFn('host call arguments must be JSON values'));
      }
      const answer = hostRef.apply(undefined, [capability, method, argsJson], APPLY_PROMISE);
      return call.call(then, answer, (envelope) => {
        const r = parse(envelope);
        if (r.ok) return r.value;
        const err = new ErrorFn(r.message);
        err.code = r.code;
        throw err;
      });
    };
    const log = (level) => (message, fields) => {
      let json;
      try {
        json = stringify([StringFn(message), fields === undefined ? null : fields]);
      } catch (e) {
        json = stringify([StringFn(message), null]);
      }
      logRef.applyIgnored(undefined, [level, json], APPLY_IGNORED);
    };
    const caps = meta.capabilities;
    const has = (c) => caps.indexOf(c) !== -1;
    const ctx = {};
    ctx.addon = freeze({ key: meta.addon.key, version: meta.addon.version });
    ctx.instance = meta.instance;
    ctx.settings = deepFreeze(meta.settings);
    ctx.connection = meta.connection === null ? null : deepFreeze(meta.connection);
    if (has('db'))
      ctx.db = freeze({
        list: (...a) => hostCall('db', 'list', a),
        get: (...a) => hostCall('db', 'get', a),
        insert: (...a) => hostCall('db', 'insert', a),
        update: (...a) => hostCall('db', 'update', a),
        delete: (...a) => hostCall('db', 'delete', a),
      });
    if (has('kv'))
      ctx.kv = freeze({
        get: (...a) => hostCall('kv', 'get', a),
        set: (...a) => call.call(then, hostCall('kv', 'set', a), () => undefined),
        delete: (...a) => call.call(then, hostCall('kv', 'delete', a), () => undefined),
      });
    if (has('mail.send')) ctx.mail = freeze({ send: (...a) => call.call(then, hostCall('mail.send', 'send', a), () => undefined) });
    if (has('fetch')) ctx.fetch = (...a) => hostCall('fetch', 'fetch', a);
    ctx.log = freeze({ info: log('info'), warn: log('warn'), error: log('error') });
    freeze(ctx);
    return async function run(ns, inputJson) {
      let fn;
      try {
        const def = ns.default;
        const table = def !== null && typeof def === 'object' ? (meta.target.kind === 'hook' ? def.hooks : def.actions) : undefined;
        fn = table !== null && typeof table === 'object' && owns(table, meta.target.name) ? table[meta.target.name] : undefined;
      } catch (e) {
        return stringify({ ok: false, message: messageOf(e) });
      }
      if (typeof fn !== 'function') return stringify({ ok: false, missing: true });
      try {
        const out = await fn(ctx, parse(inputJson));
        const json = stringify(out === undefined ? null : out);
        return '{"ok":true,"value":' + (json === undefined ? 'null' : json) + '}';
      } catch (e) {
        const memory = e instanceof RangeErrorFn && messageOf(e) === 'Array buffer allocation failed';
        return stringify({ ok: false, memory, message: messageOf(e) });
      }
    };
  };
})()`;
