/**
 * Where ingest's or a send's CPU time goes: `mailroom serve` under --cpu-prof (its ingest and
 * parse threads write a profile each), fed `[messages]` over 20 SMTP connections (or, with
 * `--send`, that many API sends 10 at a time, half local and half through a relay), then each
 * thread's self time summed by function and by where the code comes from.
 * Run after `npm run build`: `npx tsx test/bench/profile-ingest.ts [messages] [--send]`
 * (`--read DIR` summarises an earlier run again).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runIngest } from './ingest.js';
import { startMailroom } from './processes.js';
import { runSend } from './send.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a dependency by name, Mailroom's own folder, or node's internals. */
function originOf(url: string): string {
  if (url === '') return '(native/V8)';
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dep) return dep[1]!;
  const own = /\/dist\/([^/]+)\//.exec(url);
  if (own) return `mailroom ${own[1]}/`;
  if (url.startsWith('node:')) return 'node internals';
  return url;
}

function summarise(file: string, top = 18): void {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)');
  const idleUs = idle.reduce((a, [, us]) => a + us, 0);
  const busy = total - idleUs;
  const sum = (key: (n: ProfileNode) => string) => {
    const out = new Map<string, number>();
    for (const [id, us] of self) {
      const node = byId.get(id)!;
      if (node.callFrame.functionName === '(idle)') continue;
      out.set(key(node), (out.get(key(node)) ?? 0) + us);
    }
    return [...out].sort((a, b) => b[1] - a[1]);
  };
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  console.log(
    `\n### ${path.basename(file)}: busy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s`,
  );
  console.log('by origin:');
  for (const [origin, us] of sum((n) => originOf(n.callFrame.url)).slice(0, 12))
    console.log(`  ${pct(us)}  ${origin}`);
  console.log('by function (self time):');
  for (const [name, us] of sum(
    (n) =>
      `${n.callFrame.functionName || '(anonymous)'}  ${originOf(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`,
  ).slice(0, top))
    console.log(`  ${pct(us)}  ${name}`);
}

/** `--read DIR` summarises the profiles of an earlier run again. */
const reread = process.argv.indexOf('--read');
let dir: string;
if (reread > 0) {
  dir = process.argv[reread + 1]!;
} else {
  const messages = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 4000);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-profile-'));
  const profiling = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  if (process.argv.includes('--send')) {
    const { local, relay } = await runSend(messages, 10, undefined, profiling);
    console.log(
      `${messages} sends a kind, 10 at a time: local ${local.perSecond.toFixed(0)}/s, relay ${relay.perSecond.toFixed(0)}/s; profiles in ${dir}`,
    );
  } else {
    const server = await startMailroom({}, profiling);
    const result = await runIngest(server.smtpPort, 'agent@mailroom.test', messages);
    await server.stop();
    console.log(
      `${messages} messages over 20 connections: ${result.perSecond.toFixed(0)} msg/s; profiles in ${dir}`,
    );
  }
}
// One file per thread, in the order they started: the main thread, then the ingest and parse threads.
for (const file of fs.readdirSync(dir).sort()) summarise(path.join(dir, file));
