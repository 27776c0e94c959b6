/** A background loop owned by the server: started after the listeners, stopped before the database closes. */
export interface Worker {
  name: string;
  start(): void;
  stop(): Promise<void>;
}

/**
 * A worker that runs `pass` at start and every `intervalMs`, one pass at a time (a pass still
 * running when the next is due is not doubled); a failed pass is logged and the next one runs.
 * `isStopped` lets a long pass end early; `stop` waits for the pass under way.
 */
export function intervalWorker(
  name: string,
  intervalMs: number,
  pass: (isStopped: () => boolean) => Promise<unknown>,
  onError: (err: unknown) => void,
): Worker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const run = () => {
    if (running || stopped) return;
    running = pass(() => stopped)
      .catch(onError)
      .finally(() => (running = undefined));
  };
  return {
    name,
    start() {
      stopped = false;
      run();
      timer = setInterval(run, intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
