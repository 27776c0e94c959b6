import { processIo } from './io.js';
import { run } from './run.js';

// The process door: the exit code run() answers. A failed command ends the process at once, as a
// failed start may leave a handle open (a thread, a database) that would keep it running.
void run(processIo()).then((code) => {
  if (code !== 0) process.exit(code);
});
