/** A background loop owned by the server: started after the listeners, stopped before the database closes. */
export interface Worker {
  name: string;
  start(): void;
  stop(): Promise<void>;
}
