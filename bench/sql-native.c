/* Native SQLite per statement kind: the reference for storage's
 * BenchmarkCell_SQL* (cell = cellhost's SQL path on modernc.org/sqlite,
 * sqlite = plain modernc.org/sqlite through database/sql). Built and run by
 * bench/sql-kinds.sh:
 *
 *     cc -O2 -o sql-native bench/sql-native.c -lsqlite3 && ./sql-native <dir> [seconds-per-kind]
 *
 * Same work as the Go benchmarks, with prepared statements as workerd uses
 * them: each operation is one transaction (BEGIN ... COMMIT) on a WAL-mode
 * file with synchronous=NORMAL (no fsync per commit, as the cell with
 * DeferSync) and a 2000 KiB page cache, on a table items (id INTEGER
 * PRIMARY KEY, name TEXT, score REAL) of 1000 rows:
 *
 *     insert  INSERT INTO items (name, score) VALUES (?, ?)    (its own table, growing)
 *     select  SELECT id, name, score FROM items WHERE id = ?   (one row)
 *     count   SELECT count(*) FROM items                        (1000 rows)
 *     update  UPDATE items SET score = ? WHERE id = ?
 *     scan    SELECT ... WHERE id >= 500 ORDER BY id LIMIT 100  (100 rows)
 *
 * Prints "<kind> <ns/op>" per kind, the median of 5 runs. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROWS 1000

static sqlite3 *db;
static sqlite3_stmt *begin_, *commit_;

static void die(const char *what) {
  fprintf(stderr, "sql-native: %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
  exit(1);
}

static sqlite3_stmt *prep(const char *q) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v3(db, q, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) != SQLITE_OK) die(q);
  return s;
}

static void run(sqlite3_stmt *s) {
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {}
  if (rc != SQLITE_DONE) die(sqlite3_sql(s));
  sqlite3_reset(s);
}

static void open_db(const char *path) {
  if (sqlite3_open(path, &db) != SQLITE_OK) die("open");
  const char *setup =
      "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-2000;"
      "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, score REAL);"
      "WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 999)"
      " INSERT INTO items SELECT i, 'item' || i, i FROM r;";
  if (sqlite3_exec(db, setup, NULL, NULL, NULL) != SQLITE_OK) die("setup");
  begin_ = prep("BEGIN");
  commit_ = prep("COMMIT");
}

static sqlite3_stmt *ins, *sel, *cnt, *upd, *scn;

static void op(const char *kind, long i) {
  run(begin_);
  if (!strcmp(kind, "insert")) {
    sqlite3_bind_text(ins, 1, "item", 4, SQLITE_STATIC);
    sqlite3_bind_double(ins, 2, (double)i);
    run(ins);
  } else if (!strcmp(kind, "select")) {
    sqlite3_bind_double(sel, 1, (double)(i % ROWS));
    if (sqlite3_step(sel) != SQLITE_ROW) die("select");
    (void)sqlite3_column_int64(sel, 0);
    (void)sqlite3_column_text(sel, 1);
    (void)sqlite3_column_double(sel, 2);
    run(sel);
  } else if (!strcmp(kind, "count")) {
    if (sqlite3_step(cnt) != SQLITE_ROW || sqlite3_column_int64(cnt, 0) != ROWS) die("count");
    run(cnt);
  } else if (!strcmp(kind, "update")) {
    sqlite3_bind_double(upd, 1, (double)i);
    sqlite3_bind_double(upd, 2, (double)(i % ROWS));
    run(upd);
  } else {
    int n = 0;
    sqlite3_bind_double(scn, 1, 500.0);
    while (sqlite3_step(scn) == SQLITE_ROW) {
      (void)sqlite3_column_int64(scn, 0);
      (void)sqlite3_column_text(scn, 1);
      (void)sqlite3_column_double(scn, 2);
      n++;
    }
    sqlite3_reset(scn);
    if (n != 100) die("scan");
  }
  run(commit_);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: sql-native <dir> [seconds-per-kind]\n"); return 64; }
  double secs = argc > 2 ? atof(argv[2]) : 2.0;
  const char *kinds[] = {"select", "count", "update", "scan", "insert"};
  char path[4096];
  printf("native SQLite %s (C, prepared statements)\n", sqlite3_libversion());
  for (int k = 0; k < 5; k++) {
    snprintf(path, sizeof path, "%s/%s.sqlite", argv[1], kinds[k]);
    open_db(path);
    ins = prep("INSERT INTO items (name, score) VALUES (?, ?)");
    sel = prep("SELECT id, name, score FROM items WHERE id = ?");
    cnt = prep("SELECT count(*) FROM items");
    upd = prep("UPDATE items SET score = ? WHERE id = ?");
    scn = prep("SELECT id, name, score FROM items WHERE id >= ? ORDER BY id LIMIT 100");
    double runs[5];
    long i = 0;
    for (int r = 0; r < 5; r++) {
      long n = 0;
      double start = now(), end;
      do {
        for (int j = 0; j < 100; j++) op(kinds[k], i++);
        n += 100;
      } while ((end = now()) - start < secs / 5);
      runs[r] = (end - start) / n * 1e9;
    }
    qsort(runs, 5, sizeof runs[0], cmp);
    printf("%s %.0f\n", kinds[k], runs[2]);
    sqlite3_stmt *all[] = {ins, sel, cnt, upd, scn, begin_, commit_};
    for (int j = 0; j < 7; j++) sqlite3_finalize(all[j]);
    sqlite3_close(db);
    db = NULL;
  }
  return 0;
}
