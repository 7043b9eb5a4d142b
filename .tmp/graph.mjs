import { build } from 'esbuild';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const { cliBuildOptions } = await import(pathToFileURL(join(process.cwd(), 'scripts/build-cli.js')).href);
const outdir = mkdtempSync(join(tmpdir(), 'g-'));
const r = await build({ ...cliBuildOptions(outdir), write: false, sourcemap: false });
const m = r.metafile;
function closure(entry){const seen=new Set([entry]);const q=[entry];while(q.length){const o=m.outputs[q.pop()];for(const i of o?.imports??[]){if(i.kind!=='import-statement'||seen.has(i.path))continue;seen.add(i.path);if(!i.external)q.push(i.path);}}return seen;}
const entry=Object.keys(m.outputs).find(p=>m.outputs[p].entryPoint==='electron/cli.ts');
for (const cmd of ['ls','run','show','export','serve']) {
  const chunk=Object.keys(m.outputs).find(p=>p.endsWith('.js')&&Object.keys(m.outputs[p].inputs).includes(`electron/cli/commands/${cmd}.ts`));
  const loaded=new Set([...closure(entry),...closure(chunk)]);
  const inputs=[...loaded].flatMap(p=>m.outputs[p]?Object.keys(m.outputs[p].inputs):[p]);
  console.log(cmd, inputs.filter(i=>i.includes('opentelemetry')||i.includes('telemetry/')).length, inputs.filter(i=>i.includes('telemetry/')));
}
const all = Object.values(m.outputs).flatMap(o=>Object.keys(o.inputs));
console.log('telemetry in bundle:', all.filter(i=>i.includes('telemetry')).slice(0,5), all.filter(i=>i.includes('opentelemetry')).length);
const ext = new Set(Object.values(m.outputs).flatMap(o=>o.imports.filter(i=>i.external).map(i=>i.path)));
console.log([...ext].filter(e=>e.includes('opentel')));
for (const cmd of ['run']) {
  const chunk=Object.keys(m.outputs).find(p=>p.endsWith('.js')&&Object.keys(m.outputs[p].inputs).includes(`electron/cli/commands/${cmd}.ts`));
  const loaded=new Set([...closure(entry),...closure(chunk)]);
  const inputs=[...loaded].flatMap(p=>m.outputs[p]?Object.keys(m.outputs[p].inputs):[p]);
  console.log(inputs.filter(i=>i.includes('runtime')));
  console.log(m.outputs[chunk].imports.filter(i=>i.kind!=='import-statement').map(i=>i.path).slice(0,20));
}
for (const src of ['electron/host/runtime.ts','electron/cli/commands/export.ts','electron/cli/commands/ls.ts']) {
  const chunk=Object.keys(m.outputs).find(p=>p.endsWith('.js')&&Object.keys(m.outputs[p].inputs).includes(src));
  const loaded=closure(chunk);
  const inputs=[...loaded].flatMap(p=>m.outputs[p]?Object.keys(m.outputs[p].inputs):[p]);
  console.log(src, 'otel inputs statically loaded:', inputs.filter(i=>i.includes('opentelemetry')).length);
}
