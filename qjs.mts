import { getQuickJS } from 'quickjs-emscripten';
const QuickJS = await getQuickJS();
const rt = QuickJS.newRuntime();
rt.setMemoryLimit(8 << 20);
const ctx = rt.newContext();
for (const src of ['var a=[]; for (var i=0;i<45;i++){ a.push(new Array(1<<17).fill(1.5)); } a.length', 'var b=[]; for (var i=0;i<45;i++){ b.push(new ArrayBuffer(1<<20)); } b.length']) {
  const r = ctx.evalCode(src);
  if (r.error) { console.log('error', ctx.dump(r.error)); r.error.dispose(); } else { console.log('ok', ctx.dump(r.value)); r.value.dispose(); }
}
console.log(rt.dumpMemoryUsage().split('\n').slice(0,4).join('\n'));
