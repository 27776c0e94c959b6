import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon } from './daemon.js';
import { freePort } from './host.js';

/** Where Debian's rspamd puts the binary; scripts/ensure-test-deps.sh installs it. */
export const RSPAMD_BIN = process.env.RSPAMD_BIN ?? '/usr/bin/rspamd';

const GTUBE_TAIL = 'JS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';
/** rspamd's built-in test patterns: GTUBE is `reject`; with test patterns on, the Y form is `add header`. */
export const GTUBE = `X${GTUBE_TAIL}`;
export const GTUBE_ADD_HEADER = `Y${GTUBE_TAIL}`;
/** A subject holding this gets `soft reject` from the test config's own rule. */
export const SOFT_REJECT_MARK = 'MAILROOM-TEST-SOFT-REJECT';

export interface Rspamd {
  /** Its base URL, as MAILROOM_RSPAMD_URL takes it. */
  url: string;
  stop(): Promise<void>;
}

/**
 * The tests' own top-level config: Debian's rules and modules, one normal worker on a loopback
 * port, DNS pointed at a closed port (no internet here), a 7-entry TLD list instead of the full
 * public suffix list (whose compile takes a minute or more at start), and the modules that only
 * ask DNS or Redis switched off so a check is quick and its score does not hang on timeouts.
 */
function config(dir: string, port: number): string {
  return `.include "$CONFDIR/common.conf"
options {
  pidfile = "$RUNDIR/rspamd.pid";
  url_tld = "${dir}/tld.dat";
  enable_test_patterns = true;
  dns { nameserver = ["127.0.0.1:1"]; timeout = 0.2s; retransmits = 1; }
  .include "$CONFDIR/options.inc"
}
logging { type = "file"; filename = "$LOGDIR/rspamd.log"; level = "error"; }
worker "normal" {
  bind_socket = "127.0.0.1:${port}";
  .include "$CONFDIR/worker-normal.inc"
  count = 1;
}
`;
}

const OFFLINE_MODULES = [
  'rbl',
  'hfilter',
  'asn',
  'spf',
  'dmarc',
  'dkim',
  'fuzzy_check',
  'multimap',
  'phishing',
  'url_reputation',
  'whitelist',
  'neural',
];

const SOFT_REJECT_RULE = `rspamd_config:register_symbol({
  name = 'MAILROOM_TEST_SOFT_REJECT',
  type = 'prefilter',
  priority = 10,
  callback = function(task)
    if (task:get_subject() or ''):find('${SOFT_REJECT_MARK}', 1, true) then
      task:set_pre_result('soft reject', 'test soft reject')
    end
  end,
})
`;

/**
 * A real rspamd (Debian's, with its built-in rules) on a free loopback port, with its own config,
 * database and log in a temp folder; no Redis. Actions: reject at 15, add header at 6, no
 * greylisting (an offline rspamd would otherwise greylist on its DNS failures).
 */
export async function startRspamd(): Promise<Rspamd> {
  if (!fs.existsSync(RSPAMD_BIN)) {
    throw new Error(`${RSPAMD_BIN} not found: install Debian package rspamd (scripts/ensure-test-deps.sh)`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-rspamd-'));
  const localD = path.join(dir, 'local.d');
  for (const sub of ['local.d', 'run', 'db']) fs.mkdirSync(path.join(dir, sub));
  fs.writeFileSync(path.join(dir, 'tld.dat'), 'com\norg\nnet\ntest\nexample\ninvalid\nlocalhost\n');
  for (const module of OFFLINE_MODULES)
    fs.writeFileSync(path.join(localD, `${module}.conf`), 'enabled = false;\n');
  fs.writeFileSync(
    path.join(localD, 'actions.conf'),
    'reject = 15;\nadd_header = 6;\ngreylist = null;\nrewrite_subject = null;\n',
  );
  fs.writeFileSync(path.join(dir, 'rspamd.local.lua'), SOFT_REJECT_RULE);
  const port = await freePort();
  const conf = path.join(dir, 'rspamd.conf');
  fs.writeFileSync(conf, config(dir, port));
  const root = process.getuid?.() === 0;
  const url = `http://127.0.0.1:${port}`;
  const daemon = await startDaemon({
    name: 'rspamd',
    bin: RSPAMD_BIN,
    args: [
      '-f',
      '-c',
      conf,
      // As root rspamd wants a user to drop to; the tests' own is fine for a loopback test server.
      ...(root ? ['-i', '-u', 'root', '-g', 'root'] : []),
      ...Object.entries({
        LOCAL_CONFDIR: dir,
        LOGDIR: dir,
        RUNDIR: path.join(dir, 'run'),
        DBDIR: path.join(dir, 'db'),
      }).flatMap(([name, value]) => ['--var', `${name}=${value}`]),
    ],
    logFile: path.join(dir, 'rspamd.log'),
    ready: async () => (await fetch(`${url}/ping`)).ok,
  });
  return {
    url,
    async stop() {
      await daemon.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
