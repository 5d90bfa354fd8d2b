/* conformance._fastaudit: the block audit's compiled fast path for both games (issue 12).
 *
 * eldorado_chunk and robots_chunk judge a whole chunk of unit lines at once. They vouch for a
 * chunk only when every line is written exactly as the reference writes it,
 *
 *     {"index":I,"prize_cents":P,"ticket":"T"}
 *
 * with I and P canonical JSON integers of 1 to 12 digits, P a prize of the lot table, T a
 * well-formed ticket of the game whose prize is P. Then they return each line's end, prize and
 * index. Anything else, a single byte anywhere, and they return None: the chunk then goes
 * through the numpy fast path and the exact slow path (conformance._audit.judge), which alone
 * write faults. So this code never explains a fault; it only has to be right on the chunks it
 * accepts, and it accepts a subset of what the numpy path accepts (one layout of the several
 * that path knows, no escapes). tests/conformance/test_fastaudit.py holds both to the numpy
 * path on valid and broken lines.
 *
 * Each game's ticket is read as its numpy kernel (conformance/games/_*_kernel.py) reads it, from
 * the tables that kernel holds, built from the reference's rules: eldorado, every byte what its
 * offset makes it (a symbol letter, '/' or '|'), exactly 1 + its EXTRA grids, each Extra grid
 * granted by the EXTRA before it (E-I4), and each row's prize and EXTRA count from the table
 * the reference evaluator fills (EldoradoTables.row_values: prize << extra_bits | EXTRA);
 * robots, its robots once each, then '|', then byte pairs the notation allows only (the
 * kernel's pair table), as many spaces as buttons less one, and each symbol's notches (2 for
 * an X2) against its gauge (articles 4.5-4.10). The GIL is released while a chunk is judged.
 *
 * tallies, between_sums and tier_winners sum the whole document's prizes after the read (the
 * lot tallies, the payout curve, the randomness family's winners), as their numpy versions do.
 *
 * An optional extension (setup.py): without it every chunk takes the numpy path, the same
 * verdicts, slower.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_DIGITS 12 /* as the numpy path's integers (conformance._audit.judge._digits) */
#define MAX_BASE 64
#define MAX_CELLS 16
#define MAX_ROWS 16

#define MAX_SYMBOLS 16

typedef struct {
    const unsigned char *letter; /* 256 entries: a symbol's digit, or >= base */
    const int64_t *row_values;   /* base ** cells entries */
    Py_ssize_t row_count;
    int rows, cells, base, extra_bits, max_grids;
} Eldorado;

typedef struct {
    const unsigned char *symbol; /* 256 entries: a symbol's number, or >= symbols */
    int64_t notches[MAX_SYMBOLS], amounts[MAX_SYMBOLS];
    int symbols, robots, spaces, max_ticket;
    unsigned char kind[256];   /* each byte's kind (robots_kind), looked up once a byte */
    unsigned char pair[7 * 7]; /* robots_pair(x, y) at 7 x + y */
    uint64_t unit[256]; /* a letter's 1 in its symbol's 8-bit notch counter of a 64-bit word */
} Robots;

/* the prize of the ticket [p, p + length) by a game's tables, or -1 if it is not well formed;
 * p[length] is the ticket's closing quote (judge_lines finds the ticket's end there) */
typedef int64_t (*TicketPrize)(const void *tables, const unsigned char *p, Py_ssize_t length);

typedef struct {
    const int64_t *lots; /* the prizes of the lot table, ascending */
    Py_ssize_t lot_count;
    TicketPrize prize_of;
    const void *tables;
} Judge;

static inline int is_lot(const Judge *t, int64_t prize) {
    Py_ssize_t lo = 0, hi = t->lot_count;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (t->lots[mid] < prize)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->lot_count && t->lots[lo] == prize;
}

/* The prize of the eldorado ticket [p, p + length), or -1 when it is not well formed. */
static int64_t eldorado_prize(const void *tables, const unsigned char *p, Py_ssize_t length) {
    const Eldorado *t = tables;
    Py_ssize_t row_width = t->cells + 1, grid_width = row_width * t->rows;
    if ((length + 1) % grid_width) return -1;
    Py_ssize_t grids = (length + 1) / grid_width;
    if (grids < 1 || grids > t->max_grids) return -1;
    int64_t extra_mask = ((int64_t)1 << t->extra_bits) - 1, prize = 0, granted = 0;
    for (Py_ssize_t g = 0; g < grids; g++) {
        int64_t grid = 0;
        for (int r = 0; r < t->rows; r++) {
            const unsigned char *row = p + g * grid_width + r * row_width;
            Py_ssize_t code = 0;
            for (int k = t->cells - 1; k >= 0; k--) { /* letter k weighs base ** k */
                unsigned char digit = t->letter[row[k]];
                if (digit >= t->base) return -1;
                code = code * t->base + digit;
            }
            /* a row ends in '/', a grid in '|', the last grid at the ticket's end */
            int last_row = r == t->rows - 1;
            if (!(last_row && g == grids - 1) && row[t->cells] != (last_row ? '|' : '/'))
                return -1;
            grid += t->row_values[code];
        }
        prize += grid >> t->extra_bits;
        granted += grid & extra_mask;
        if (g < grids - 1 && granted < g + 1) return -1; /* grid g + 1 needs g + 1 EXTRA */
    }
    return granted == grids - 1 ? prize : -1;
}

/* What a byte is to the robots notation: the numpy kernel's kinds (RobotsTables). */
enum { LETTER, X2, PLUS, SPACE, BAR, QUOTE, OTHER };

static inline int robots_kind(const Robots *t, unsigned char c) {
    if (t->symbol[c] < t->symbols) return LETTER;
    switch (c) {
    case '2': return X2;
    case '+': return PLUS;
    case ' ': return SPACE;
    case '|': return BAR;
    case '"': return QUOTE;
    default: return OTHER;
    }
}

/* Whether byte y may follow byte x from a robots ticket's '|' to its closing quote: a reveal
 * (a letter) starts after '|', ' ' or '+'; an X2 follows its letter; '+', ' ' and the end
 * follow a reveal (a letter or its X2). */
static inline int robots_pair(int x, int y) {
    return (y == LETTER && (x == BAR || x == SPACE || x == PLUS)) || (y == X2 && x == LETTER) ||
           ((y == PLUS || y == SPACE || y == QUOTE) && (x == LETTER || x == X2));
}

static void robots_lookups(Robots *t) {
    for (int c = 0; c < 256; c++) {
        t->kind[c] = (unsigned char)robots_kind(t, (unsigned char)c);
        t->unit[c] = t->kind[c] == LETTER ? (uint64_t)1 << (8 * t->symbol[c]) : 0;
    }
    for (int x = 0; x < 7; x++)
        for (int y = 0; y < 7; y++) t->pair[7 * x + y] = (unsigned char)robots_pair(x, y);
}

/* The prize of the robots ticket [p, p + length), or -1 when it is not well formed. */
static int64_t robots_prize(const void *tables, const unsigned char *p, Py_ssize_t length) {
    const Robots *t = tables;
    if (length <= t->robots + 1 || length > t->max_ticket) return -1;
    unsigned seen = 0;
    for (int k = 0; k < t->robots; k++) {
        unsigned char s = t->symbol[p[k]];
        if (s >= t->symbols) return -1;
        seen |= 1u << s;
    }
    if (seen != (1u << t->symbols) - 1 || p[t->robots] != '|') return -1;
    /* every pair judged and every notch counted without a branch a byte, the verdict once at
     * the end (the same prize, or -1, as judging byte by byte and stopping at the first bad
     * pair): a letter adds its unit (1 in its symbol's 8-bit counter of one word) once, twice
     * before an X2, any other byte 0 (at most 8 symbols, checked by robots_chunk; a ticket of
     * at most 72 bytes counts below 256 a symbol). The byte after the ticket, its closing
     * quote, is read as the pair after its last byte: no test for the end a byte */
    uint64_t counters = 0;
    int spaces = 0;
    unsigned ok = 1;
    int kind = t->kind[p[t->robots]];
    for (Py_ssize_t i = t->robots; i < length; i++) {
        int next = t->kind[p[i + 1]];
        ok &= t->pair[7 * kind + next];
        counters += t->unit[p[i]] << (next == X2);
        spaces += kind == SPACE;
        kind = next;
    }
    if (!ok || spaces != t->spaces) return -1;
    int64_t prize = 0;
    for (int k = 0; k < t->symbols; k++)
        if ((int64_t)((counters >> (8 * k)) & 0xff) >= t->notches[k]) prize += t->amounts[k];
    return prize;
}

#define OPEN "{\"index\":"
#define PRIZE_KEY ",\"prize_cents\":"
#define TICKET_KEY ",\"ticket\":\""
#define CLOSE "\"}"

/* The canonical JSON integer at p, before the byte `after`, within [p, stop): 1 to MAX_DIGITS
 * digits, no leading zero; the byte after it in *next. 0 if there is none. */
static inline int read_integer_before(const unsigned char *p, const unsigned char *stop,
                                      unsigned char after, int64_t *value,
                                      const unsigned char **next) {
    const unsigned char *q = p, *limit = stop - p > MAX_DIGITS ? p + MAX_DIGITS : stop;
    int64_t v = 0;
    while (q < limit && *q >= '0' && *q <= '9') v = v * 10 + (*q++ - '0');
    Py_ssize_t length = q - p;
    if (length < 1 || (length > 1 && p[0] == '0') || q == stop || *q != after) return 0;
    *value = v;
    *next = q;
    return 1;
}

/* The smallest canonical line: the keys, the braces, two 1-digit integers, a 1-byte ticket and
 * the newline (no ticket of either game is that short; this only bounds the lines a chunk can
 * hold). */
#define MIN_LINE ((Py_ssize_t)(sizeof OPEN + sizeof PRIZE_KEY + sizeof TICKET_KEY + sizeof CLOSE - 4 + 4))

/* Judge the lines of [buf, buf + size) in one pass, each read from its first byte to its
 * newline (no line count first, no search for the line's end apart from its ticket's closing
 * quote); fills ends, prizes, indices (room for `room` lines) and the number of lines in *n.
 * 1 when every line is vouched for. */
static int judge_lines(const Judge *t, const unsigned char *buf, Py_ssize_t size, Py_ssize_t room,
                       int64_t *ends, int64_t *prizes, int64_t *indices, Py_ssize_t *n) {
    const unsigned char *p = buf, *stop = buf + size;
    Py_ssize_t i = 0;
    while (p < stop) {
        if (i == room || stop - p < MIN_LINE || memcmp(p, OPEN, sizeof OPEN - 1)) return 0;
        int64_t index, prize;
        const unsigned char *q;
        if (!read_integer_before(p + sizeof OPEN - 1, stop, ',', &index, &q)) return 0;
        if (stop - q < (Py_ssize_t)(sizeof PRIZE_KEY - 1) || memcmp(q, PRIZE_KEY, sizeof PRIZE_KEY - 1))
            return 0;
        if (!read_integer_before(q + sizeof PRIZE_KEY - 1, stop, ',', &prize, &q)) return 0;
        if (stop - q < (Py_ssize_t)(sizeof TICKET_KEY - 1) ||
            memcmp(q, TICKET_KEY, sizeof TICKET_KEY - 1))
            return 0;
        const unsigned char *ticket = q + sizeof TICKET_KEY - 1;
        /* the ticket ends at its closing quote, which "}\n" follows; a ticket holds no quote,
         * newline or other byte outside its notation (prize_of refuses them), so the line is
         * the same as read from its newline back */
        const unsigned char *quote = memchr(ticket, '"', stop - ticket);
        if (quote == NULL || stop - quote < 3 || quote[1] != '}' || quote[2] != '\n') return 0;
        if (!is_lot(t, prize) || t->prize_of(t->tables, ticket, quote - ticket) != prize) return 0;
        ends[i] = quote + 2 - buf;
        prizes[i] = prize;
        indices[i] = index;
        i++;
        p = quote + 3;
    }
    *n = i;
    return i > 0;
}

/* Checks the chunk's size and the lot table, then judges the chunk: (ends, prizes, indices) as
 * int64 bytearrays, None, or NULL with an exception set. */
static PyObject *judge_chunk(const Py_buffer *chunk, Py_ssize_t size, const Py_buffer *lots,
                             TicketPrize prize_of, const void *tables) {
    Judge judge = {lots->buf, lots->len / 8, prize_of, tables};
    if (size < 0 || size > chunk->len) {
        PyErr_Format(PyExc_ValueError, "size %zd outside the chunk's %zd bytes", size, chunk->len);
        return NULL;
    }
    if (lots->len % 8 || (uintptr_t)lots->buf % 8) {
        PyErr_Format(PyExc_ValueError, "the lot table has %zd bytes, not 8-byte aligned int64",
                     lots->len);
        return NULL;
    }
    for (Py_ssize_t k = 1; k < judge.lot_count; k++) {
        if (judge.lots[k - 1] >= judge.lots[k]) {
            PyErr_SetString(PyExc_ValueError, "the lot table's prizes are not strictly ascending");
            return NULL;
        }
    }
    const unsigned char *buf = chunk->buf;
    /* room for as many lines as the chunk can hold, cut to those it holds after */
    Py_ssize_t room = size / MIN_LINE + 1, n = 0;
    PyObject *result = NULL, *out[3] = {NULL, NULL, NULL};
    for (int k = 0; k < 3; k++) {
        out[k] = PyByteArray_FromStringAndSize(NULL, room * 8);
        if (out[k] == NULL) goto done;
    }
    int64_t *ends = (int64_t *)PyByteArray_AS_STRING(out[0]);
    int64_t *prizes = (int64_t *)PyByteArray_AS_STRING(out[1]);
    int64_t *indices = (int64_t *)PyByteArray_AS_STRING(out[2]);
    int vouched;
    Py_BEGIN_ALLOW_THREADS vouched =
        judge_lines(&judge, buf, size, room, ends, prizes, indices, &n);
    Py_END_ALLOW_THREADS
    if (!vouched) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    for (int k = 0; k < 3; k++)
        if (PyByteArray_Resize(out[k], n * 8) < 0) goto done;
    result = PyTuple_Pack(3, out[0], out[1], out[2]);
done:
    for (int k = 0; k < 3; k++) Py_XDECREF(out[k]);
    return result;
}

static PyObject *eldorado_chunk(PyObject *self, PyObject *args) {
    Py_buffer chunk = {0}, letter = {0}, row_values = {0}, lots = {0};
    Py_ssize_t size;
    int rows, cells, base, extra_bits, max_grids;
    if (!PyArg_ParseTuple(args, "y*ny*y*iiiiiy*", &chunk, &size, &letter, &row_values, &rows,
                          &cells, &base, &extra_bits, &max_grids, &lots))
        return NULL;
    PyObject *result = NULL;
    Eldorado t = {letter.buf, row_values.buf, row_values.len / 8, rows, cells, base, extra_bits,
                  max_grids};
    Py_ssize_t expected_rows = 1;
    if (letter.len != 256) {
        PyErr_Format(PyExc_ValueError, "the letter table has %zd entries, not 256", letter.len);
        goto done;
    }
    if (base < 1 || base > MAX_BASE || cells < 1 || cells > MAX_CELLS || rows < 1 ||
        rows > MAX_ROWS || extra_bits < 1 || extra_bits > 16 || max_grids < 1 ||
        rows * cells >= 1 << extra_bits) {
        PyErr_Format(PyExc_ValueError,
                     "inconsistent grid: base %d, %d rows of %d cells, %d EXTRA bits, %d grids",
                     base, rows, cells, extra_bits, max_grids);
        goto done;
    }
    for (int k = 0; k < cells; k++) {
        if (expected_rows > PY_SSIZE_T_MAX / base) {
            PyErr_Format(PyExc_ValueError, "%d ** %d rows: no row table is that large", base, cells);
            goto done;
        }
        expected_rows *= base;
    }
    if (row_values.len % 8 || t.row_count != expected_rows || (uintptr_t)row_values.buf % 8) {
        PyErr_Format(PyExc_ValueError,
                     "the row table has %zd bytes, not %zd 8-byte aligned int64", row_values.len,
                     expected_rows);
        goto done;
    }
    result = judge_chunk(&chunk, size, &lots, eldorado_prize, &t);
done:
    PyBuffer_Release(&chunk);
    PyBuffer_Release(&letter);
    PyBuffer_Release(&row_values);
    PyBuffer_Release(&lots);
    return result;
}

static PyObject *robots_chunk(PyObject *self, PyObject *args) {
    Py_buffer chunk = {0}, symbol = {0}, notches = {0}, amounts = {0}, lots = {0};
    Py_ssize_t size;
    int robots, buttons, max_ticket;
    if (!PyArg_ParseTuple(args, "y*ny*y*y*iiiy*", &chunk, &size, &symbol, &notches, &amounts,
                          &robots, &buttons, &max_ticket, &lots))
        return NULL;
    PyObject *result = NULL;
    Robots t = {symbol.buf, {0}, {0}, 0, robots, buttons - 1, max_ticket};
    if (notches.len >= 8 && notches.len <= 8 * 8) t.symbols = (int)(notches.len / 8);
    if (symbol.len != 256) {
        PyErr_Format(PyExc_ValueError, "the symbol table has %zd entries, not 256", symbol.len);
        goto done;
    }
    /* every symbol once among the robots: read as a bit set of at most 8 (the numpy kernel's
     * 6-bit fields, one a symbol, fill 48 bits) */
    if (notches.len % 8 || amounts.len != notches.len || t.symbols < 1 || t.symbols > 8 ||
        robots != t.symbols || buttons < 1 || max_ticket < robots + 2 || max_ticket > 72) {
        PyErr_Format(PyExc_ValueError,
                     "inconsistent robots: %zd notches, %zd amounts (bytes), %d robots, "
                     "%d buttons, tickets of at most %d",
                     notches.len, amounts.len, robots, buttons, max_ticket);
        goto done;
    }
    memcpy(t.notches, notches.buf, (size_t)notches.len);
    memcpy(t.amounts, amounts.buf, (size_t)amounts.len);
    robots_lookups(&t);
    result = judge_chunk(&chunk, size, &lots, robots_prize, &t);
done:
    PyBuffer_Release(&chunk);
    PyBuffer_Release(&symbol);
    PyBuffer_Release(&notches);
    PyBuffer_Release(&amounts);
    PyBuffer_Release(&lots);
    return result;
}

/* ---- after the read: sums over the whole document's prizes (int32, one a unit) ----
 *
 * tallies, between_sums and tier_winners give exactly what conformance._audit.driver._tallies,
 * the payout curve's np.add.reduceat and conformance._stats.tier_winners give through numpy
 * (tests/conformance/test_fastaudit.py holds them to it), in one pass over the prizes each,
 * without the GIL and without an array of int64 a unit: on a robots block they were 30 ms on
 * one core after the last byte was read, most of it the kernel zeroing fresh pages. */

#define DIRECT_PRIZES 4096 /* prizes below this are counted in place */
#define TALLY_SLOTS 8192   /* an open-addressing table for the others, half full at most */

static int int32_buffer(const Py_buffer *b, const char *what) {
    if (b->len % 4 || (uintptr_t)b->buf % 4) {
        PyErr_Format(PyExc_ValueError, "%s has %zd bytes, not 4-byte aligned int32", what, b->len);
        return 0;
    }
    return 1;
}

static int int64_buffer(const Py_buffer *b, const char *what) {
    if (b->len % 8 || (uintptr_t)b->buf % 8) {
        PyErr_Format(PyExc_ValueError, "%s has %zd bytes, not 8-byte aligned int64", what, b->len);
        return 0;
    }
    return 1;
}

static int ascending_int64(const int64_t *v, Py_ssize_t n) {
    for (Py_ssize_t k = 1; k < n; k++)
        if (v[k - 1] >= v[k]) return 0;
    return 1;
}

static int compare_int64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Counts each non-negative prize of p[0..n) into direct (below DIRECT_PRIZES) or the table;
 * 0 when more than TALLY_SLOTS / 2 distinct prizes do not fit in direct. */
static int count_prizes(const int32_t *p, Py_ssize_t n, int64_t *direct, int64_t *keys,
                        int64_t *counts) {
    Py_ssize_t others = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t v = p[i];
        if (v < DIRECT_PRIZES) {
            if (v >= 0) direct[v]++;
            continue;
        }
        uint32_t h = ((uint32_t)v * 2654435761u) & (TALLY_SLOTS - 1);
        while (keys[h] != v && keys[h] != -1) h = (h + 1) & (TALLY_SLOTS - 1);
        if (keys[h] == -1) {
            if (++others > TALLY_SLOTS / 2) return 0;
            keys[h] = v;
        }
        counts[h]++;
    }
    return 1;
}

static PyObject *tallies(PyObject *self, PyObject *args) {
    Py_buffer prizes = {0};
    if (!PyArg_ParseTuple(args, "y*", &prizes)) return NULL;
    PyObject *result = NULL, *values = NULL, *numbers = NULL;
    int64_t *direct = NULL, *keys = NULL, *counts = NULL;
    if (!int32_buffer(&prizes, "the prizes")) goto done;
    direct = PyMem_Calloc(DIRECT_PRIZES, 8);
    keys = PyMem_Malloc(TALLY_SLOTS * 8);
    counts = PyMem_Calloc(TALLY_SLOTS, 8);
    if (direct == NULL || keys == NULL || counts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t h = 0; h < TALLY_SLOTS; h++) keys[h] = -1;
    int counted;
    Py_BEGIN_ALLOW_THREADS counted =
        count_prizes(prizes.buf, prizes.len / 4, direct, keys, counts);
    Py_END_ALLOW_THREADS
    if (!counted) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    /* the prizes found, ascending: the direct ones in order, then the others sorted */
    Py_ssize_t found = 0, others = 0;
    for (Py_ssize_t v = 0; v < DIRECT_PRIZES; v++) found += direct[v] > 0;
    for (Py_ssize_t h = 0; h < TALLY_SLOTS; h++) others += keys[h] != -1;
    values = PyByteArray_FromStringAndSize(NULL, (found + others) * 8);
    numbers = PyByteArray_FromStringAndSize(NULL, (found + others) * 8);
    if (values == NULL || numbers == NULL) goto done;
    int64_t *v_out = (int64_t *)PyByteArray_AS_STRING(values);
    int64_t *n_out = (int64_t *)PyByteArray_AS_STRING(numbers);
    Py_ssize_t k = 0;
    for (Py_ssize_t v = 0; v < DIRECT_PRIZES; v++)
        if (direct[v] > 0) {
            v_out[k] = v;
            n_out[k++] = direct[v];
        }
    for (Py_ssize_t h = 0; h < TALLY_SLOTS; h++)
        if (keys[h] != -1) v_out[k++] = keys[h];
    qsort(v_out + found, (size_t)others, 8, compare_int64);
    for (Py_ssize_t j = found; j < found + others; j++) {
        uint32_t h = ((uint32_t)v_out[j] * 2654435761u) & (TALLY_SLOTS - 1);
        while (keys[h] != v_out[j]) h = (h + 1) & (TALLY_SLOTS - 1);
        n_out[j] = counts[h];
    }
    result = PyTuple_Pack(2, values, numbers);
done:
    Py_XDECREF(values);
    Py_XDECREF(numbers);
    PyMem_Free(direct);
    PyMem_Free(keys);
    PyMem_Free(counts);
    PyBuffer_Release(&prizes);
    return result;
}

static void sum_between(const int32_t *p, Py_ssize_t n, const int64_t *starts, Py_ssize_t m,
                        int64_t *out) {
    for (Py_ssize_t j = 0; j < m; j++) {
        Py_ssize_t end = j + 1 < m ? (Py_ssize_t)starts[j + 1] : n;
        int64_t sum = 0;
        for (Py_ssize_t i = (Py_ssize_t)starts[j]; i < end; i++) sum += p[i] > 0 ? p[i] : 0;
        out[j] = sum;
    }
}

static PyObject *between_sums(PyObject *self, PyObject *args) {
    Py_buffer prizes = {0}, starts = {0};
    if (!PyArg_ParseTuple(args, "y*y*", &prizes, &starts)) return NULL;
    PyObject *result = NULL;
    if (!int32_buffer(&prizes, "the prizes") || !int64_buffer(&starts, "the starts")) goto done;
    Py_ssize_t n = prizes.len / 4, m = starts.len / 8;
    const int64_t *at = starts.buf;
    if (m > 0 && (at[0] < 0 || at[m - 1] >= n || !ascending_int64(at, m))) {
        PyErr_Format(PyExc_ValueError, "the starts are not strictly ascending in [0, %zd)", n);
        goto done;
    }
    result = PyByteArray_FromStringAndSize(NULL, m * 8);
    if (result == NULL) goto done;
    int64_t *out = (int64_t *)PyByteArray_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS sum_between(prizes.buf, n, at, m, out);
    Py_END_ALLOW_THREADS
done:
    PyBuffer_Release(&prizes);
    PyBuffer_Release(&starts);
    return result;
}

/* The units of p[0..n) whose positive prize is a tier, in order, and their codes (1 + the
 * tier's place): room for one more than the positive prizes in positions and codes (each unit
 * is written where the next winner goes, and counted only if it is one: no branch a unit).
 * small[v] is the code of prize v below DIRECT_PRIZES; the few tiers from there are compared. */
static Py_ssize_t find_winners(const int32_t *p, Py_ssize_t n, const int32_t *small,
                               const int64_t *large, const int64_t *large_codes, Py_ssize_t many,
                               int64_t *positions, int64_t *codes) {
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t v = p[i];
        int64_t code = 0;
        if ((uint32_t)v < DIRECT_PRIZES) code = small[v];
        else if (v > 0)
            for (Py_ssize_t j = 0; j < many; j++) code = large[j] == v ? large_codes[j] : code;
        positions[k] = i;
        codes[k] = code;
        k += code != 0;
    }
    return k;
}

static PyObject *tier_winners(PyObject *self, PyObject *args) {
    Py_buffer prizes = {0}, tiers = {0};
    if (!PyArg_ParseTuple(args, "y*y*", &prizes, &tiers)) return NULL;
    PyObject *result = NULL, *out[2] = {NULL, NULL};
    int32_t *small = NULL;
    int64_t *large = NULL, *large_codes = NULL;
    if (!int32_buffer(&prizes, "the prizes") || !int64_buffer(&tiers, "the tiers")) goto done;
    Py_ssize_t n = prizes.len / 4, count = tiers.len / 8, positive = 0;
    if (!ascending_int64(tiers.buf, count)) {
        PyErr_SetString(PyExc_ValueError, "the tiers' prizes are not strictly ascending");
        goto done;
    }
    const int32_t *p = prizes.buf;
    const int64_t *tier = tiers.buf;
    for (Py_ssize_t i = 0; i < n; i++) positive += p[i] > 0;
    small = PyMem_Calloc(DIRECT_PRIZES, sizeof *small);
    large = PyMem_Malloc((count + 1) * 8);
    large_codes = PyMem_Malloc((count + 1) * 8);
    if (small == NULL || large == NULL || large_codes == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t many = 0;
    for (Py_ssize_t j = 0; j < count; j++) {
        if (tier[j] <= 0 || tier[j] > INT32_MAX) continue; /* no positive int32 prize is it */
        if (tier[j] < DIRECT_PRIZES) small[tier[j]] = (int32_t)(j + 1);
        else {
            large[many] = tier[j];
            large_codes[many++] = j + 1;
        }
    }
    for (int j = 0; j < 2; j++) {
        out[j] = PyByteArray_FromStringAndSize(NULL, (positive + 1) * 8);
        if (out[j] == NULL) goto done;
    }
    Py_ssize_t found;
    Py_BEGIN_ALLOW_THREADS found =
        find_winners(p, n, small, large, large_codes, many,
                     (int64_t *)PyByteArray_AS_STRING(out[0]),
                     (int64_t *)PyByteArray_AS_STRING(out[1]));
    Py_END_ALLOW_THREADS
    for (int j = 0; j < 2; j++)
        if (PyByteArray_Resize(out[j], found * 8) < 0) goto done;
    result = PyTuple_Pack(2, out[0], out[1]);
done:
    Py_XDECREF(out[0]);
    Py_XDECREF(out[1]);
    PyMem_Free(small);
    PyMem_Free(large);
    PyMem_Free(large_codes);
    PyBuffer_Release(&prizes);
    PyBuffer_Release(&tiers);
    return result;
}

static PyMethodDef methods[] = {
    {"eldorado_chunk", eldorado_chunk, METH_VARARGS,
     "eldorado_chunk(chunk, size, letter, row_values, rows, cells, base, extra_bits, max_grids, "
     "lots) -> (ends, prizes, indices) as int64 bytearrays when every line of chunk[:size] is "
     "a canonical unit line of a well-formed ticket showing its declared prize, else None"},
    {"robots_chunk", robots_chunk, METH_VARARGS,
     "robots_chunk(chunk, size, symbol, notches, amounts, robots, buttons, max_ticket, lots) -> "
     "as eldorado_chunk, for robots tickets"},
    {"tallies", tallies, METH_VARARGS,
     "tallies(prizes) -> (values, counts) as int64 bytearrays: each non-negative prize of the "
     "int32 prizes once, ascending, and how many units declare it; None past 4 096 distinct "
     "prizes of 4 096 cents or more"},
    {"between_sums", between_sums, METH_VARARGS,
     "between_sums(prizes, starts) -> int64 bytearray: the sum of the positive int32 prizes "
     "from each start to the next (the last to the end), as np.add.reduceat of the prizes "
     "clipped at 0 at strictly ascending starts"},
    {"tier_winners", tier_winners, METH_VARARGS,
     "tier_winners(prizes, tiers) -> (positions, codes) as int64 bytearrays: the units whose "
     "positive int32 prize is one of the strictly ascending int64 tiers, in order, and each "
     "one's code (1 + the tier's place)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastaudit",
                                    "The block audit's compiled fast path (issue 12).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__fastaudit(void) { return PyModule_Create(&module); }
