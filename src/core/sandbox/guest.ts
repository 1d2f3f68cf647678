/**
 * What runs inside QuickJS for the host: the setup evaluated once before the snapshot (a
 * seedable Math.random, and the tools that validate and serialise a result inside the guest,
 * closed over pristine builtins), and the checks a source passes before it is evaluated at all.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Guest-side setup, evaluated once before the snapshot: installs a seedable Math.random and
 * returns [extract, describe, seed, finish], closed over pristine builtins (the snapshot restores them
 * before every program, so a program that replaces builtins affects only itself).
 */
export const SETUP = String.raw`(function (maxOutput) {
  var isArray = Array.isArray, isSafe = Number.isSafeInteger, gopd = Object.getOwnPropertyDescriptor;
  var getProto = Object.getPrototypeOf, toStr = String, slice = String.prototype.slice;
  var G = globalThis;
  // Proxies are tagged where they are made (the global Proxy is a wrapper; the real constructor
  // stays in this closure), so an output that is a Proxy is refused even when its traps behave.
  // Bound, not looked up on Function.prototype at each call, which a program may replace.
  var uncurry = Function.prototype.bind.bind(Function.prototype.call);
  var proxies = new WeakSet(), hasProxy = uncurry(WeakSet.prototype.has), addProxy = uncurry(WeakSet.prototype.add);
  var RealProxy = Proxy, revocable = Proxy.revocable, defineProperty = Object.defineProperty;
  function isProxy(value) { return hasProxy(proxies, value); }
  var TaggedProxy = function Proxy(target, handler) {
    if (!new.target) throw new TypeError("Constructor Proxy requires 'new'");
    var made = new RealProxy(target, handler);
    addProxy(proxies, made);
    return made;
  };
  TaggedProxy.revocable = function (target, handler) {
    var made = revocable(target, handler);
    addProxy(proxies, made.proxy);
    return made;
  };
  G.Proxy = TaggedProxy;
  defineProperty(G, '__isProxy', { value: isProxy, writable: false, enumerable: false, configurable: false });
  var s = 0;
  Math.random = function () {
    s = (s + 0x6D2B79F5) >>> 0;
    var t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  function seed(value) { s = value >>> 0; }
  function extract(value) {
    if (isProxy(value)) return 'E' + 'output is a Proxy';
    if (!isArray(value)) return 'E' + (value === undefined ? 'output is not defined' : 'output is not a list');
    var n = value.length;
    if (!(n <= maxOutput)) return 'E' + 'output has more than ' + maxOutput + ' elements';
    // Built as a string: an array's index assignment would meet setters a program put on Array.prototype.
    var text = '';
    for (var i = 0; i < n; i++) {
      var d = gopd(value, i);
      if (!d || !('value' in d)) return 'E' + 'element ' + i + ' is not a plain value';
      var v = d.value;
      if (typeof v !== 'number' || !isSafe(v)) return 'E' + 'element ' + i + ' is not a safe integer';
      text += (i ? ',' : '') + v;
    }
    return 'O' + text;
  }
  // The harness's channel (see the module's comment): taken by a prelude, then read instead of output.
  var reported = null, harnessOnly = false;
  function report(list) { reported = list; }
  defineProperty(G, '__takeReport', { value: function () { harnessOnly = true; return report; }, writable: false, enumerable: false, configurable: true });
  function describe(error) {
    try {
      if (error === null || error === undefined) return 'Z' + toStr(error);
      if (typeof error !== 'object' && typeof error !== 'function') return 'V' + slice.call(toStr(error), 0, 300);
      var nameD = gopd(error, 'name'), messageD = gopd(error, 'message');
      var proto = getProto(error);
      var name = nameD && 'value' in nameD ? nameD.value : proto && gopd(proto, 'name') && gopd(proto, 'name').value;
      var message = messageD && 'value' in messageD ? messageD.value : '';
      return 'N' + slice.call(toStr(name), 0, 40) + ':' + slice.call(toStr(message), 0, 300);
    } catch (e) {
      return 'Vunprintable error';
    }
  }
  // The program's output in one call: 'P' when it is an object that is not an array (maybe a
  // promise: the host looks at its state), else what extract says.
  function finish() {
    if (harnessOnly) return reported === null ? 'E' + 'the test harness reported no result (the program skipped or replaced it)' : extract(reported);
    var value = G.output;
    if (!isArray(value) && value !== null && typeof value === 'object') return 'P';
    return extract(value);
  }
  return [extract, describe, seed, finish];
})`;

function byteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 2 : 3;
  }
  return bytes;
}

/** Rejects sources before any evaluation: the size cap, NUL bytes, lone surrogates. */
export function checkSource(source: string, maxSourceBytes: number): string | null {
  if (typeof source !== 'string' || source.trim() === '') return 'empty program';
  if (source.length > maxSourceBytes || byteLength(source) > maxSourceBytes) return `program larger than ${maxSourceBytes} bytes`;
  if (source.includes('\0')) return 'program contains a NUL character';
  if (LONE_SURROGATE.test(source)) return 'program contains a lone surrogate';
  return null;
}

