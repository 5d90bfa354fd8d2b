/* conformance._fastaudit: the block audit's compiled fast path for eldorado chunks (issue 12).
 *
 * eldorado_chunk judges a whole chunk of unit lines at once. It vouches for a chunk only when
 * every line is written exactly as the reference writes it,
 *
 *     {"index":I,"prize_cents":P,"ticket":"T"}
 *
 * with I and P canonical JSON integers of 1 to 12 digits, P a prize of the lot table, T a
 * well-formed eldorado ticket (every byte what its offset makes it: a symbol letter, '/' or
 * '|'; exactly 1 + its EXTRA grids, each Extra grid granted by the EXTRA before it, E-I4)
 * whose prize is P. Then it returns each line's end, prize and index. Anything else, a single
 * byte anywhere, and it returns None: the chunk then goes through the numpy fast path and the
 * exact slow path (conformance._audit.judge), which alone write faults. So this code never
 * explains a fault; it only has to be right on the chunks it accepts, and it accepts a subset
 * of what the numpy path accepts (one layout of the several that path knows, no escapes).
 * tests/conformance/test_fastaudit.py holds it to the numpy path on valid and broken lines.
 *
 * The prize of a row is read from the table the reference evaluator fills
 * (EldoradoTables.row_values: prize << extra_bits | EXTRA count), as the numpy kernel does:
 * one source of truth, the rules YAML. The GIL is released while a chunk is judged.
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

typedef struct {
    const unsigned char *letter; /* 256 entries: a symbol's digit, or >= base */
    const int64_t *row_values;   /* base ** cells entries */
    Py_ssize_t row_count;
    const int64_t *lots; /* the prizes of the lot table, ascending */
    Py_ssize_t lot_count;
    int rows, cells, base, extra_bits, max_grids;
} Tables;

/* The canonical JSON integer in [p, end): 1 to MAX_DIGITS digits, no leading zero. */
static inline int read_integer(const unsigned char *p, const unsigned char *end, int64_t *value) {
    Py_ssize_t length = end - p;
    if (length < 1 || length > MAX_DIGITS || (length > 1 && p[0] == '0')) return 0;
    int64_t v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') return 0;
        v = v * 10 + (*p - '0');
    }
    *value = v;
    return 1;
}

static inline int is_lot(const Tables *t, int64_t prize) {
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
static int64_t ticket_prize(const Tables *t, const unsigned char *p, Py_ssize_t length) {
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

#define OPEN "{\"index\":"
#define PRIZE_KEY ",\"prize_cents\":"
#define TICKET_KEY ",\"ticket\":\""
#define CLOSE "\"}"

/* Judge lines [0, size) of buf, whose line ends are known to number n; fills ends, prizes,
 * indices. 1 when every line is vouched for. */
static int judge_lines(const Tables *t, const unsigned char *buf, Py_ssize_t size, Py_ssize_t n,
                       int64_t *ends, int64_t *prizes, int64_t *indices) {
    const unsigned char *p = buf, *stop = buf + size;
    for (Py_ssize_t i = 0; i < n; i++) {
        const unsigned char *e = memchr(p, '\n', stop - p);
        if (e == NULL) return 0;
        /* shorter than the keys, the braces and two 1-digit integers: no canonical line (each
         * part is checked within [p, e) below; this only spares the reads) */
        if (e - p < (Py_ssize_t)(sizeof OPEN + sizeof PRIZE_KEY + sizeof TICKET_KEY + sizeof CLOSE -
                                 4 + 2))
            return 0;
        if (memcmp(p, OPEN, sizeof OPEN - 1) || memcmp(e - 2, CLOSE, 2)) return 0;
        const unsigned char *number = p + sizeof OPEN - 1;
        const unsigned char *comma = memchr(number, ',', e - number);
        int64_t index, prize;
        if (comma == NULL || !read_integer(number, comma, &index)) return 0;
        if (e - comma < (Py_ssize_t)(sizeof PRIZE_KEY - 1) ||
            memcmp(comma, PRIZE_KEY, sizeof PRIZE_KEY - 1))
            return 0;
        number = comma + sizeof PRIZE_KEY - 1;
        comma = memchr(number, ',', e - number);
        if (comma == NULL || !read_integer(number, comma, &prize)) return 0;
        if (e - comma < (Py_ssize_t)(sizeof TICKET_KEY - 1) + 2 ||
            memcmp(comma, TICKET_KEY, sizeof TICKET_KEY - 1))
            return 0;
        const unsigned char *ticket = comma + sizeof TICKET_KEY - 1;
        if (!is_lot(t, prize) || ticket_prize(t, ticket, (e - 2) - ticket) != prize) return 0;
        ends[i] = e - buf;
        prizes[i] = prize;
        indices[i] = index;
        p = e + 1;
    }
    return p == stop;
}

static PyObject *eldorado_chunk(PyObject *self, PyObject *args) {
    Py_buffer chunk = {0}, letter = {0}, row_values = {0}, lots = {0};
    Py_ssize_t size;
    int rows, cells, base, extra_bits, max_grids;
    if (!PyArg_ParseTuple(args, "y*ny*y*iiiiiy*", &chunk, &size, &letter, &row_values, &rows,
                          &cells, &base, &extra_bits, &max_grids, &lots))
        return NULL;
    PyObject *result = NULL, *out[3] = {NULL, NULL, NULL};
    Tables t = {letter.buf, row_values.buf, row_values.len / 8, lots.buf, lots.len / 8,
                rows, cells, base, extra_bits, max_grids};
    Py_ssize_t expected_rows = 1;
    if (size < 0 || size > chunk.len) {
        PyErr_Format(PyExc_ValueError, "size %zd outside the chunk's %zd bytes", size, chunk.len);
        goto done;
    }
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
    if (row_values.len % 8 || t.row_count != expected_rows) {
        PyErr_Format(PyExc_ValueError, "the row table has %zd bytes, not %zd int64", row_values.len,
                     expected_rows);
        goto done;
    }
    if (lots.len % 8) {
        PyErr_Format(PyExc_ValueError, "the lot table has %zd bytes, not int64", lots.len);
        goto done;
    }
    if ((uintptr_t)row_values.buf % 8 || (uintptr_t)lots.buf % 8) {
        PyErr_SetString(PyExc_ValueError, "the row and lot tables must be 8-byte aligned");
        goto done;
    }
    for (Py_ssize_t k = 1; k < t.lot_count; k++) {
        if (t.lots[k - 1] >= t.lots[k]) {
            PyErr_SetString(PyExc_ValueError, "the lot table's prizes are not strictly ascending");
            goto done;
        }
    }
    const unsigned char *buf = chunk.buf;
    Py_ssize_t n = 0;
    for (const unsigned char *p = buf, *stop = buf + size;
         (p = memchr(p, '\n', stop - p)) != NULL; p++)
        n++;
    if (n == 0 || buf[size - 1] != '\n') {
        result = Py_NewRef(Py_None);
        goto done;
    }
    for (int k = 0; k < 3; k++) {
        out[k] = PyByteArray_FromStringAndSize(NULL, n * 8);
        if (out[k] == NULL) goto done;
    }
    int64_t *ends = (int64_t *)PyByteArray_AS_STRING(out[0]);
    int64_t *prizes = (int64_t *)PyByteArray_AS_STRING(out[1]);
    int64_t *indices = (int64_t *)PyByteArray_AS_STRING(out[2]);
    int vouched;
    Py_BEGIN_ALLOW_THREADS vouched = judge_lines(&t, buf, size, n, ends, prizes, indices);
    Py_END_ALLOW_THREADS
    result = vouched ? PyTuple_Pack(3, out[0], out[1], out[2]) : Py_NewRef(Py_None);
done:
    for (int k = 0; k < 3; k++) Py_XDECREF(out[k]);
    PyBuffer_Release(&chunk);
    PyBuffer_Release(&letter);
    PyBuffer_Release(&row_values);
    PyBuffer_Release(&lots);
    return result;
}

static PyMethodDef methods[] = {
    {"eldorado_chunk", eldorado_chunk, METH_VARARGS,
     "eldorado_chunk(chunk, size, letter, row_values, rows, cells, base, extra_bits, max_grids, "
     "lots) -> (ends, prizes, indices) as int64 bytearrays when every line of chunk[:size] is "
     "a canonical unit line of a well-formed ticket showing its declared prize, else None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastaudit",
                                    "The block audit's compiled fast path (issue 12).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__fastaudit(void) { return PyModule_Create(&module); }
