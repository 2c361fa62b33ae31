/**
 * The script every fresh context of an add-on isolate runs before the add-on's module. It runs
 * while the context's built-ins are still pristine, keeps what it needs of them in its closure,
 * and evaluates to `setup(hostRef, logRef, metaJson)`, which builds the add-on's `ctx` and
 * returns `run(namespace, inputJson)`. A failure leaves with its message and its stack (frames of
 * `server.js`, mapped to the author's source in the API process); an action's `ctx.refuse` leaves
 * as `refused: {status, code, message, params}`, known by the error object it threw.
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
  const stackOf = (e) => {
    try {
      const st = e !== null && typeof e === 'object' ? e.stack : undefined;
      return typeof st === 'string' ? call.call(slice, st, 0, 16384) : null;
    } catch {
      return null;
    }
  };
  // ctx.refuse's errors, known by identity: what the add-on throws itself is a failure, never a refusal.
  const refusals = new WeakMap();
  const apply = Reflect.apply;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const REFUSE_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;
  const test = RegExp.prototype.test;
  const isInteger = Number.isInteger;
  const isArray = Array.isArray;
  const getPrototypeOf = Object.getPrototypeOf;
  const ObjectProto = Object.prototype;
  const refuse = (status, code, message, params) => {
    if (!isInteger(status) || status < 400 || status > 499 || status === 401 || status === 407)
      throw new TypeErrorFn('ctx.refuse(status, …): status is a 4xx (400-499) other than 401 and 407');
    if (typeof code !== 'string' || !call.call(test, REFUSE_CODE, code))
      throw new TypeErrorFn('ctx.refuse(status, code, …): code is 2-64 of A-Z, 0-9 and _, starting with a letter (PARTY_TOO_LARGE)');
    if (typeof message !== 'string' || message.length === 0) throw new TypeErrorFn('ctx.refuse(status, code, message): message is a non-empty string');
    let paramsJson = null;
    if (params !== undefined && params !== null) {
      if (typeof params !== 'object' || isArray(params) || getPrototypeOf(params) !== ObjectProto)
        throw new TypeErrorFn('ctx.refuse(…, params): params is a plain object of JSON values');
      paramsJson = stringify(params);
      if (paramsJson.length > 4096) throw new RangeErrorFn('ctx.refuse(…, params): params is at most 4 KiB of JSON');
    }
    const err = new ErrorFn(call.call(slice, message, 0, 500));
    err.name = 'AddonRefusal';
    err.status = status;
    err.code = code;
    apply(weakSet, refusals, [err, { status, code, message: call.call(slice, message, 0, 500), params: paramsJson === null ? null : parse(paramsJson) }]);
    throw err;
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
    ctx.refuse = refuse;
    freeze(ctx);
    return async function run(ns, inputJson) {
      let fn;
      try {
        const def = ns.default;
        const table = def !== null && typeof def === 'object' ? (meta.target.kind === 'hook' ? def.hooks : def.actions) : undefined;
        fn = table !== null && typeof table === 'object' && owns(table, meta.target.name) ? table[meta.target.name] : undefined;
      } catch (e) {
        return stringify({ ok: false, message: messageOf(e), stack: stackOf(e) });
      }
      if (typeof fn !== 'function') return stringify({ ok: false, missing: true });
      try {
        const out = await fn(ctx, parse(inputJson));
        const json = stringify(out === undefined ? null : out);
        return '{"ok":true,"value":' + (json === undefined ? 'null' : json) + '}';
      } catch (e) {
        // The API process checks the refusal again: what the add-on could change here (its own prototypes) gains it nothing.
        const refusal = e !== null && typeof e === 'object' ? apply(weakGet, refusals, [e]) : undefined;
        if (refusal !== undefined) {
          if (meta.target.kind === 'action') return stringify({ ok: false, refused: refusal });
          return stringify({ ok: false, message: 'ctx.refuse is for actions; a beforeWrite hook returns {refuse: message}', stack: stackOf(e) });
        }
        const memory = e instanceof RangeErrorFn && messageOf(e) === 'Array buffer allocation failed';
        return stringify({ ok: false, memory, message: messageOf(e), stack: stackOf(e) });
      }
    };
  };
})()`;
