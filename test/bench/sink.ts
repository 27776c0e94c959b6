/**
 * The bare sink issue 31 measures ingest against: smtp-server on its own, accepting every
 * recipient and reading each message to its end, then discarding it. startSink
 * (test/bench/processes.ts) runs it as its own process: `node --import tsx test/bench/sink.ts PORT`.
 */
import { SMTPServer } from 'smtp-server';

const port = Number(process.argv[2]);
const server = new SMTPServer({
  authOptional: true,
  disableReverseLookup: true,
  logger: false,
  onData(stream, _session, callback) {
    stream.on('end', () => callback());
    stream.resume();
  },
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
