/** A background loop owned by the server: started after the listeners, stopped before the database closes. */
export interface Worker {
  name: string;
  start(): void;
  stop(): Promise<void>;
}

/**
 * A worker that runs `once` at start and then every `intervalMs`, never two runs at a time; a
 * run that fails is given to `failed` (the next one comes all the same). stop() waits for the
 * run in hand.
 */
export function everyInterval(
  name: string,
  intervalMs: number,
  once: () => Promise<unknown>,
  failed: (err: unknown) => void,
): Worker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const run = () => {
    running ??= once()
      .catch(failed)
      .finally(() => (running = undefined));
  };
  return {
    name,
    start() {
      run();
      timer = setInterval(run, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
