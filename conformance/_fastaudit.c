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

static PyMethodDef methods[] = {
    {"eldorado_chunk", eldorado_chunk, METH_VARARGS,
     "eldorado_chunk(chunk, size, letter, row_values, rows, cells, base, extra_bits, max_grids, "
     "lots) -> (ends, prizes, indices) as int64 bytearrays when every line of chunk[:size] is "
     "a canonical unit line of a well-formed ticket showing its declared prize, else None"},
    {"robots_chunk", robots_chunk, METH_VARARGS,
     "robots_chunk(chunk, size, symbol, notches, amounts, robots, buttons, max_ticket, lots) -> "
     "as eldorado_chunk, for robots tickets"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastaudit",
                                    "The block audit's compiled fast path (issue 12).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__fastaudit(void) { return PyModule_Create(&module); }
