import BetterSqlite3 from 'better-sqlite3';

/**
 * The tokenizer of SQLite's messages_fts (migrations/001_init.sql). PostgreSQL's full-text
 * documents and queries are made of the words it gives, so both engines find the same mail.
 */
const TOKENIZER = 'unicode61 remove_diacritics 2';

/**
 * Run by SQLite's FTS5 itself, in an in-memory table, rather than written again in JavaScript:
 * a regular expression over Unicode classes differs from unicode61 (Unicode 6.1 tables, its own
 * case folding and diacritic list) on tens of thousands of code points (docs/decisions/search.md).
 */
class Fts5Words {
  private readonly insert;
  private readonly terms;
  private readonly inOrder;
  private readonly clear;

  constructor() {
    const db = new BetterSqlite3(':memory:');
    db.exec(`CREATE VIRTUAL TABLE words USING fts5(text, content = '', contentless_delete = 1, tokenize = '${TOKENIZER}');
      CREATE VIRTUAL TABLE terms USING fts5vocab(words, 'row');
      CREATE VIRTUAL TABLE instances USING fts5vocab(words, 'instance');`);
    this.insert = db.prepare('INSERT INTO words (rowid, text) VALUES (1, ?)');
    this.terms = db.prepare<[], string>('SELECT term FROM terms').pluck();
    this.inOrder = db.prepare<[], string>('SELECT term FROM instances ORDER BY offset').pluck();
    this.clear = db.prepare("INSERT INTO words (words) VALUES ('delete-all')");
  }

  /**
   * The words of `text`, case folded and without diacritics, as FTS5 indexes them: each once,
   * in byte order, or every one in the order of the text.
   */
  of(text: string, order: 'distinct' | 'in-order'): string[] {
    this.insert.run(text);
    try {
      return (order === 'distinct' ? this.terms : this.inOrder).all();
    } finally {
      this.clear.run();
    }
  }
}

let tokenizer: Fts5Words | undefined;

/** The distinct words FTS5 makes of `text`, in byte order: what SQLite's index holds for it. */
export function searchWordsOf(text: string): string[] {
  tokenizer ??= new Fts5Words();
  return tokenizer.of(text, 'distinct');
}

/** Every word FTS5 makes of `text`, in the order of the text (a query's words). */
export function searchWordsInOrder(text: string): string[] {
  tokenizer ??= new Fts5Words();
  return tokenizer.of(text, 'in-order');
}
