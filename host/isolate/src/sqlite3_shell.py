"""The `sqlite3` command line of the isolate, on the Python runtime's sqlite3 module.

Its output is that of Debian 12's sqlite3 3.40.1 for the forms agents use: SQL as arguments
or on stdin, the list, csv, tabs, line, column, table, box, markdown, json and quote modes,
headers, separators, -cmd, .tables, .schema, .import and friends. The engine is the
runtime's SQLite; what 3.40's shell.c prints is reproduced here, down to how its printf
writes a REAL (`%!.15g` as text, `%!.20g` in json and quote modes, digits computed in x87
80-bit arithmetic, as the shell does on amd64).
"""

import re
import sqlite3
import sys

VERSION = "3.40.1"

# ---------------------------------------------------------------------------------------------
# REAL values as SQLite 3.40's printf writes them.


def _ld(x):
    """`x` rounded to an x87 long double (64-bit significand, nearest even)."""
    if x == 0:
        return x
    sign = 1
    if x < 0:
        sign, x = -1, -x
    n, d = x.numerator, x.denominator
    shift = 63 - (n.bit_length() - d.bit_length())
    while True:
        num, den = (n << shift, d) if shift >= 0 else (n, d << -shift)
        m, r = divmod(num, den)
        if m >= 1 << 64:
            shift -= 1
        elif m < 1 << 63:
            shift += 1
        else:
            break
    if 2 * r > den or (2 * r == den and m & 1):
        m += 1
    value = Fraction(m) / (Fraction(2) ** shift)
    return sign * value


Fraction = None
_D = {}


def _exact():
    """Imports `fractions` (a fifth of the start) only when a REAL is printed."""
    global Fraction
    if Fraction is None:
        from fractions import Fraction

        _D.update({v: Fraction(v) for v in (1e100, 1e10, 10.0, 1e-8, 1e8, 0.1)})


def _rounder(precision):
    r = 0.5
    for _ in range(precision):
        r *= 0.1
    return Fraction(r)


def real_text(r, precision):
    """`sqlite3_snprintf("%!.<precision>g", r)` of SQLite 3.40."""
    if r != r:
        return "NaN"
    prefix = ""
    if r < 0:
        r, prefix = -r, "-"
    if r == float("inf"):
        return prefix + "Inf"
    _exact()
    if precision > 0:
        precision -= 1
    rounder = _rounder(precision & 0xFFF)
    value = Fraction(r)
    exp = 0
    if value > 0:
        scale = Fraction(1)
        while value >= _ld(_D[1e100] * scale) and exp <= 350:
            scale = _ld(scale * _D[1e100])
            exp += 100
        while value >= _ld(_D[1e10] * scale) and exp <= 350:
            scale = _ld(scale * _D[1e10])
            exp += 10
        while value >= _ld(_D[10.0] * scale) and exp <= 350:
            scale = _ld(scale * 10)
            exp += 1
        value = _ld(value / scale)
        while value < _D[1e-8]:
            value = _ld(value * _D[1e8])
            exp -= 8
        while value < 1:
            value = _ld(value * 10)
            exp -= 1
        if exp > 350:
            return prefix + "Inf"
    value = _ld(value + rounder)
    if value >= 10:
        value = _ld(value * _D[0.1])
        exp += 1
    as_exp = exp < -4 or exp > precision
    if not as_exp:
        precision -= exp
    e2 = 0 if as_exp else exp
    digits = [26]

    def digit():
        nonlocal value
        if digits[0] <= 0:
            return "0"
        digits[0] -= 1
        d = int(value)
        value = _ld((value - d) * 10)
        return chr(48 + d)

    out = [prefix]
    if e2 < 0:
        out.append("0")
    else:
        while e2 >= 0:
            out.append(digit())
            e2 -= 1
    out.append(".")
    e2 += 1
    while e2 < 0:
        out.append("0")
        precision -= 1
        e2 += 1
    while precision > 0:
        out.append(digit())
        precision -= 1
    text = "".join(out).rstrip("0")
    if text.endswith("."):
        text += "0"
    if as_exp:
        sign = "-" if exp < 0 else "+"
        exp = abs(exp)
        text += "e" + sign + ("%d" % (exp // 100) if exp >= 100 else "") + "%02d" % (exp % 100)
    return text


# ---------------------------------------------------------------------------------------------
# Values.


class Text(bytes):
    """A TEXT value (a BLOB comes as plain bytes)."""


def c_string(b):
    """A value as the shell's `%s` prints it: up to its first NUL."""
    i = b.find(b"\0")
    return b if i < 0 else b[:i]


def as_text(v, null):
    """`sqlite3_column_text`, as list, csv, line and column modes print it."""
    if v is None:
        return null
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, int):
        return str(v).encode()
    if isinstance(v, float):
        return real_text(v, 15).encode()
    return c_string(bytes(v))


def real_20(v):
    return real_text(v, 20).encode()


# ---------------------------------------------------------------------------------------------
# Output modes.

NEEDS_CSV_QUOTE = set(range(0, 0x20)) | {0x20, 0x22, 0x27} | set(range(0x7F, 0x100))


def csv_field(z, sep):
    if not z or any(c in NEEDS_CSV_QUOTE for c in z) or (sep and sep in z):
        return b'"' + z.replace(b'"', b'""') + b'"'
    return z


def json_string(z):
    out = bytearray(b'"')
    for c in z:
        if c in (0x5C, 0x22):
            out += b"\\" + bytes([c])
        elif c <= 0x1F:
            out += {8: b"\\b", 12: b"\\f", 10: b"\\n", 13: b"\\r", 9: b"\\t"}.get(
                c, b"\\u%04x" % c
            )
        else:
            out.append(c)
    out += b'"'
    return bytes(out)


def quoted_string(z):
    return b"'" + z.replace(b"'", b"''") + b"'"


def width(z):
    """Characters in `z`, as the shell counts them: bytes that do not continue a UTF-8 one."""
    return sum(1 for c in z if c & 0xC0 != 0x80)


def width_print(w, z):
    aw = abs(w)
    n = 0
    i = 0
    while i < len(z):
        if z[i] & 0xC0 != 0x80:
            n += 1
            if n == aw:
                i += 1
                while i < len(z) and z[i] & 0xC0 == 0x80:
                    i += 1
                break
        i += 1
    if n >= aw:
        return z[:i]
    if w < 0:
        return b" " * (aw - n) + z
    return z + b" " * (aw - n)


def display_lines(z):
    """A value of a columnar mode as its lines: tabs to spaces, any other control byte ends a
    line (`translateForDisplayAndDup` without wrapping)."""
    lines = []
    while True:
        out = bytearray()
        n = 0
        i = 0
        while i < len(z):
            c = z[i]
            if c >= 0x20:
                n += 1
                out.append(c)
                i += 1
                while i < len(z) and z[i] & 0xC0 == 0x80:
                    out.append(z[i])
                    i += 1
                continue
            if c == 9:
                while True:
                    n += 1
                    out.append(0x20)
                    if n & 7 == 0:
                        break
                i += 1
                continue
            break
        lines.append(bytes(out))
        if i >= len(z) or i + 1 >= len(z):
            return lines
        if z[i] == 13 and z[i + 1] == 10:
            if i + 2 >= len(z):
                return lines
            z = z[i + 2 :]
        else:
            z = z[i + 1 :]


BOX = {k: v.encode() for k, v in dict(
    h="\u2500", v="\u2502", tl="\u250c", tr="\u2510", bl="\u2514", br="\u2518",
    lt="\u251c", rt="\u2524", tt="\u252c", bt="\u2534", x="\u253c",
).items()}


class Shell:
    def __init__(self):
        self.mode = "list"
        self.col_sep = b"|"
        self.row_sep = b"\n"
        self.null = b""
        self.header = False
        self.header_set = False
        self.widths = []
        self.bail = False
        self.db = None
        self.db_path = ":memory:"
        self.readonly = False
        self.out = sys.stdout.buffer

    # -- the database -------------------------------------------------------------------------

    def open(self):
        """The database, opened on first use (as the shell does: no file until then)."""
        if self.db is None:
            path = self.db_path
            try:
                if self.readonly and path != ":memory:":
                    from urllib.parse import quote

                    self.db = sqlite3.connect("file:%s?mode=ro" % quote(path), uri=True,
                                              isolation_level=None)
                else:
                    self.db = sqlite3.connect(path, isolation_level=None)
            except sqlite3.Error as e:
                err('Error: unable to open database "%s": %s' % (path, e))
                raise Quit(1)
            self.db.text_factory = Text
        return self.db

    # -- running SQL --------------------------------------------------------------------------

    def exec_sql(self, sql):
        """Runs every statement of `sql`; None, or (code, message) for the first that failed."""
        db = self.open()
        rest = sql
        while True:
            rest = rest.lstrip()
            if not rest:
                return None
            whole = rest
            stmt, rest = split_statement(rest)
            if not stmt.strip() or is_comment_only(stmt):
                continue
            failed = self.run_statement(db, stmt, whole)
            if failed:
                return failed

    def run_statement(self, db, stmt, whole):
        """Runs one statement (`whole`: it and the rest of its text, for an error's context)."""
        try:
            cur = db.execute(stmt)
        except sqlite3.Error as e:
            if isinstance(e, sqlite3.ProgrammingError) and not hasattr(e, "sqlite_errorcode"):
                return (1, "in prepare, " + str(e))
            return self.failure(db, stmt, whole, e)
        except (ValueError, OverflowError) as e:
            return (1, "in prepare, " + str(e))
        except MemoryError:
            return OUT_OF_MEMORY
        if cur.description is None:
            try:
                cur.fetchall()
            except sqlite3.Error as e:
                return stepping(e)
            except MemoryError:
                return OUT_OF_MEMORY
            return None
        names = [d[0].encode("utf-8", "surrogateescape") for d in cur.description]
        rows = iter_rows(cur)
        try:
            self.emit(names, rows)
        except StepError as e:
            return stepping(e.error)
        except MemoryError:
            return OUT_OF_MEMORY
        return None

    def failure(self, db, stmt, whole, e):
        """A statement that failed before its first row: at prepare unless it compiles."""
        code = getattr(e, "sqlite_errorcode", 1) & 0xFF
        try:
            db.execute("EXPLAIN " + stmt).fetchall()
        except sqlite3.Error:
            msg = "in prepare, " + str(e)
            if code > 1:
                msg += " (%d)" % code
            return (code, msg + error_context(whole, str(e)))
        return stepping(e)

    # -- printing rows ------------------------------------------------------------------------

    def emit(self, names, rows):
        mode = self.mode
        if mode in ("column", "table", "box", "markdown"):
            return self.columnar(names, rows)
        w = self.out.write
        count = 0
        for row in rows:
            first = count == 0
            count += 1
            if mode == "list":
                if first and self.header:
                    w(self.col_sep.join(names) + self.row_sep)
                w(self.col_sep.join(as_text(v, self.null) for v in row) + self.row_sep)
            elif mode == "csv":
                if first and self.header:
                    w(self.col_sep.join(csv_field(c, self.col_sep) for c in names) + self.row_sep)
                w(self.col_sep.join(
                    self.null if v is None else csv_field(as_text(v, self.null), self.col_sep)
                    for v in row) + self.row_sep)
            elif mode == "line":
                wide = max([5] + [len(c) for c in names])
                if not first:
                    w(self.row_sep)
                for c, v in zip(names, row):
                    w(b" " * (wide - len(c)) + c + b" = " + as_text(v, self.null) + self.row_sep)
            elif mode == "json":
                w(b"[{" if first else b",\n{")
                w(b",".join(json_string(c_string(c)) + b":" + json_value(v)
                            for c, v in zip(names, row)))
                w(b"}")
            elif mode == "quote":
                if first and self.header:
                    w(self.col_sep.join(quoted_string(c_string(c)) for c in names) + self.row_sep)
                w(self.col_sep.join(quote_value(v) for v in row) + self.row_sep)
        if mode == "json" and count:
            w(b"]\n")

    def columnar(self, names, rows):
        mode = self.mode
        ncol = len(names)
        widths = [abs(x) for x in self.widths[:ncol]] + [0] * (ncol - len(self.widths))
        declared = (self.widths + [0] * ncol)[:ncol]
        cells = [display_lines(c)[0] for c in names]
        row_end = []
        multi = False
        got_row = False
        for row in rows:
            got_row = True
            parts = [display_lines(as_text(v, self.null)) for v in row]
            height = max(len(p) for p in parts)
            if height > 1:
                multi = True
            for k in range(height):
                cells.extend(p[k] if k < len(p) else b"" for p in parts)
                row_end.append(k == height - 1)
        if not got_row or ncol == 0:
            return
        for i, z in enumerate(cells):
            j = i % ncol
            widths[j] = max(widths[j], width(z))
        w = self.out.write

        def signed(j):
            return -widths[j] if declared[j] < 0 else widths[j]

        def centered(j):
            z = cells[j]
            pad = widths[j] - width(z)
            return b" " * (pad // 2) + z + b" " * ((pad + 1) // 2)

        def rule(left, mid, right, line):
            w(left + mid.join(line * (x + 2) for x in widths) + right + b"\n")

        if mode == "column":
            sep, end = b"  ", b"\n"
            if self.header:
                w(sep.join(width_print(signed(j), cells[j]) for j in range(ncol)) + b"\n")
                w(sep.join(b"-" * widths[j] for j in range(ncol)) + b"\n")
        elif mode == "table":
            sep, end = b" | ", b" |\n"
            rule(b"+", b"+", b"+", b"-")
            w(b"| " + b" | ".join(centered(j) for j in range(ncol)) + b" |\n")
            rule(b"+", b"+", b"+", b"-")
        elif mode == "markdown":
            sep, end = b" | ", b" |\n"
            w(b"| " + b" | ".join(centered(j) for j in range(ncol)) + b" |\n")
            rule(b"|", b"|", b"|", b"-")
        else:
            sep, end = b" " + BOX["v"] + b" ", b" " + BOX["v"] + b"\n"
            rule(BOX["tl"], BOX["tt"], BOX["tr"], BOX["h"])
            w(BOX["v"] + b" " + (b" " + BOX["v"] + b" ").join(centered(j) for j in range(ncol))
              + b" " + BOX["v"] + b"\n")
            rule(BOX["lt"], BOX["x"], BOX["rt"], BOX["h"])
        lines = len(cells) // ncol - 1
        for r in range(lines):
            line = cells[(r + 1) * ncol:(r + 2) * ncol]
            start = b"" if mode == "column" else (BOX["v"] + b" " if mode == "box" else b"| ")
            w(start + sep.join(width_print(signed(j), line[j]) for j in range(ncol)) + end)
            if multi and row_end[r] and r + 1 < lines:
                if mode == "table":
                    rule(b"+", b"+", b"+", b"-")
                elif mode == "box":
                    rule(BOX["lt"], BOX["x"], BOX["rt"], BOX["h"])
                elif mode == "column":
                    w(b"\n")
        if mode == "table":
            rule(b"+", b"+", b"+", b"-")
        elif mode == "box":
            rule(BOX["bl"], BOX["bt"], BOX["br"], BOX["h"])


# SQLite's SQLITE_NOMEM, which Python raises as MemoryError: the isolate's memory limit.
OUT_OF_MEMORY = (7, "stepping, out of memory (7)")


class StepError(Exception):
    def __init__(self, error):
        self.error = error


def iter_rows(cur):
    while True:
        try:
            row = cur.fetchone()
        except sqlite3.Error as e:
            raise StepError(e)
        if row is None:
            return
        yield row


def stepping(e):
    code = getattr(e, "sqlite_errorcode", 1) & 0xFF
    msg = "stepping, " + str(e)
    if code > 1:
        msg += " (%d)" % code
    return (code, msg)


def real_literal(v, whole=False):
    """A REAL as json mode and `.dump` write it: infinities as 1e999, `%!.20g` else, and with
    `whole` (`.dump`) an integral one as `N.0`."""
    if v in (float("inf"), float("-inf")):
        return b"1e999" if v > 0 else b"-1e999"
    if whole and v == v and (abs(v) < 2.0 ** 63 and v == int(v) or v == -(2.0 ** 63)):
        return b"%d.0" % int(v)
    return real_20(v)


def json_value(v):
    if v is None:
        return b"null"
    if isinstance(v, float):
        return real_literal(v)
    if isinstance(v, int):
        return str(int(v)).encode()
    if isinstance(v, Text):
        return json_string(c_string(v))
    return json_string(bytes(v))


def quote_value(v):
    if v is None:
        return b"NULL"
    if isinstance(v, float):
        return real_20(v)
    if isinstance(v, int):
        return str(int(v)).encode()
    if isinstance(v, Text):
        return quoted_string(c_string(v))
    return b"X'" + bytes(v).hex().encode() + b"'"


# ---------------------------------------------------------------------------------------------
# SQL text.


def split_statement(sql):
    """The first complete statement of `sql` and the rest."""
    i = 0
    n = len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"`[":
            close = "]" if c == "[" else c
            j = sql.find(close, i + 1)
            while j >= 0 and close != "]" and sql[j + 1:j + 2] == close:
                j = sql.find(close, j + 2)
            i = n if j < 0 else j + 1
            continue
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == ";" and sqlite3.complete_statement(sql[:i + 1]):
            return sql[:i + 1], sql[i + 1:]
        i += 1
    return sql, ""


def is_comment_only(stmt):
    text = re.sub(r"--[^\n]*|/\*.*?(\*/|$)", "", stmt, flags=re.S)
    return not text.strip(" \t\n\r\f\v;")


def error_context(sql, msg):
    """What 3.40 prints under an error with a known offset: the statement and a pointer."""
    token = None
    for pat in (r'^near "(.*)": syntax error$', r'^unrecognized token: "(.*)"$',
                r"^no such column: (.*)$", r"^no such function: (.*)$",
                r"^ambiguous column name: (.*)$", r"^table (\S+) already exists$"):
        m = re.match(pat, msg, re.S)
        if m:
            token = m.group(1)
            break
    if token is None:
        return ""
    offset = find_token(sql, token)
    if offset < 0:
        return ""
    data = sql.encode("utf-8", "surrogateescape")
    offset = len(sql[:offset].encode("utf-8", "surrogateescape"))
    start = 0
    while offset > 50:
        offset -= 1
        start += 1
        while start < len(data) and data[start] & 0xC0 == 0x80:
            start += 1
            offset -= 1
    code = data[start:]
    if len(code) > 78:
        end = 78
        while data[start + end] & 0xC0 == 0x80:
            end -= 1
        code = code[:end]
    code = bytes(0x20 if chr(c) in " \t\n\v\f\r" else c for c in code)
    code = code.decode("utf-8", "surrogateescape")
    if offset < 25:
        return "\n  %s\n  %s^--- error here" % (code, " " * offset)
    return "\n  %s\n  %serror here ---^" % (code, " " * (offset - 14))


def find_token(sql, token):
    low, tok = sql.lower(), token.lower()
    i = 0
    while True:
        i = low.find(tok, i)
        if i < 0:
            return -1
        before = low[i - 1] if i else " "
        after = low[i + len(tok)] if i + len(tok) < len(low) else " "
        word = tok[:1].isalnum() or tok[:1] == "_"
        if not word or (not (before.isalnum() or before == "_")
                        and not (after.isalnum() or after == "_")):
            return i
        i += 1


# ---------------------------------------------------------------------------------------------
# Dot commands.

KEYWORDS = set("""ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT
BEFORE BEGIN BETWEEN BY CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE
CROSS CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE DEFERRED
DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN
FAIL FILTER FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP GROUPS HAVING IF IGNORE
IMMEDIATE IN INDEX INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LAST
LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL NULLS OF OFFSET ON OR ORDER
OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE RANGE RECURSIVE REFERENCES
REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT
SET TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION TRIGGER UNBOUNDED UNION UNIQUE UPDATE USING
VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT""".split())


def quote_char(name):
    if not name or not (name[0].isalpha() or name[0] == "_"):
        return '"'
    if any(not (c.isalnum() or c == "_") for c in name):
        return '"'
    return '"' if name.upper() in KEYWORDS else ""


def quoted_name(name):
    q = quote_char(name)
    return q + name.replace('"', '""') + q if q else name


BACKSLASHES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
               '"': '"', "'": "'", "\\": "\\"}


def resolve_backslashes(s):
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            i += 1
            c = s[i]
            if c in BACKSLASHES:
                c = BACKSLASHES[c]
            elif "0" <= c <= "7":
                j = i
                while j < len(s) and j < i + 3 and "0" <= s[j] <= "7":
                    j += 1
                c = chr(int(s[i:j], 8))
                i = j - 1
        out.append(c)
        i += 1
    return "".join(out)


def dot_args(line):
    args = []
    i = 1
    n = len(line)
    while i < n:
        while i < n and line[i].isspace():
            i += 1
        if i >= n:
            break
        if line[i] in "'\"":
            delim = line[i]
            i += 1
            start = i
            while i < n and line[i] != delim:
                if line[i] == "\\" and delim == '"' and i + 1 < n:
                    i += 1
                i += 1
            arg = line[start:i]
            i += 1
            args.append(resolve_backslashes(arg) if delim == '"' else arg)
        else:
            start = i
            while i < n and not line[i].isspace():
                i += 1
            args.append(resolve_backslashes(line[start:i]))
    return args


def boolean(arg):
    low = arg.lower()
    if low in ("on", "yes", "true"):
        return True
    if low in ("off", "no", "false"):
        return False
    if re.fullmatch(r"[0-9]+", arg):
        return int(arg) != 0
    err('ERROR: Not a boolean value: "%s". Assuming "no".' % arg)
    return False


MODES = [("lines", "line", 3), ("columns", "column", 1), ("list", "list", 3),
         ("csv", "csv", 1), ("tabs", "tabs", 1), ("quote", "quote", 1), ("markdown", "markdown", 1),
         ("table", "table", 2), ("box", "box", 1), ("json", "json", 1)]


def err(msg):
    sys.stdout.buffer.flush()
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def matches(word, name, least):
    return len(word) >= least and name.startswith(word)


class Quit(Exception):
    pass


def dot_command(shell, line):
    """Runs a dot command: 0, 1 after an error, or raises Quit."""
    args = dot_args(line)
    if not args:
        return 0
    word = args[0]
    if matches(word, "headers", 2) or word == "header":
        if len(args) != 2:
            err("Usage: .headers on|off")
            return 1
        shell.header = boolean(args[1])
        shell.header_set = True
        return 0
    if matches(word, "mode", 3):
        if len(args) < 2:
            return show_mode(shell)
        for name, mode, least in MODES:
            if matches(args[1], name, least):
                set_mode(shell, mode, dot=True)
                return 0
        err('Error: mode should be one of: ascii box column csv html insert json line list '
            'markdown qbox quote table tabs tcl')
        return 1
    if matches(word, "separator", 3):
        if len(args) not in (2, 3):
            err("Usage: .separator COL ?ROW?")
            return 1
        shell.col_sep = args[1].encode()
        if len(args) == 3:
            shell.row_sep = args[2].encode()
        return 0
    if matches(word, "nullvalue", 2):
        if len(args) != 2:
            err("Usage: .nullvalue STRING")
            return 1
        shell.null = args[1].encode()
        return 0
    if matches(word, "tables", 2):
        return tables(shell, args[1:])
    if matches(word, "schema", 2):
        return schema(shell, args[1:])
    if matches(word, "dump", 2):
        return dump(shell, args[1:])
    if matches(word, "import", 3):
        return import_file(shell, args[1:])
    if matches(word, "quit", 1) or matches(word, "exit", 2):
        raise Quit(int(args[1]) if word.startswith("e") and len(args) > 1 else 0)
    if matches(word, "bail", 2):
        if len(args) != 2:
            err("Usage: .bail on|off")
            return 1
        shell.bail = boolean(args[1])
        return 0
    if matches(word, "print", 2):
        shell.out.write(" ".join(args[1:]).encode() + b"\n")
        return 0
    if matches(word, "width", 1):
        shell.widths = [int(a) if re.fullmatch(r"-?[0-9]+", a) else 0 for a in args[1:]]
        return 0
    if matches(word, "read", 3):
        if len(args) != 2:
            err("Usage: .read FILE")
            return 1
        try:
            with open(args[1], "rb") as f:
                return process_input(shell, f)
        except OSError:
            err('Error: cannot open "%s"' % args[1])
            return 1
    err('Error: unknown command or invalid arguments:  "%s". Enter ".help" for help' % word)
    return 1


def set_mode(shell, mode, dot):
    shell.mode = mode
    if mode == "line":
        shell.row_sep = b"\n"
    elif mode == "column":
        if dot and not shell.header_set:
            shell.header = True
        shell.row_sep = b"\n"
    elif mode == "list":
        shell.col_sep, shell.row_sep = b"|", b"\n"
    elif mode == "csv":
        shell.col_sep = b","
        if dot:
            shell.row_sep = b"\r\n"
    elif mode == "tabs":
        shell.mode = "list"
        shell.col_sep = b"\t"
    elif mode == "quote":
        shell.col_sep, shell.row_sep = b",", b"\n"


def show_mode(shell):
    mode = "tabs" if shell.mode == "list" and shell.col_sep == b"\t" else shell.mode
    shell.out.write(b"current output mode: " + mode.encode() + b"\n")
    return 0


def tables(shell, args):
    db = shell.open()
    pattern = args[0] if args else "%"
    try:
        names = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_schema WHERE type IN ('table','view') "
            "AND name NOT LIKE 'sqlite_%' AND name LIKE ?1 ORDER BY 1", (pattern,))]
    except sqlite3.Error as e:
        err("Error: " + str(e))
        return 1
    if not names:
        return 0
    longest = max(len(n) for n in names)
    cols = max(1, 80 // (longest + 2))
    rows = (len(names) + cols - 1) // cols
    for i in range(rows):
        line = b""
        for j in range(i, len(names), rows):
            line += (b"" if j < rows else b"  ") + names[j] + b" " * (longest - len(names[j]))
        shell.out.write(line + b"\n")
    return 0


def fake_schema(db, name):
    cols = [r[1] for r in db.execute("PRAGMA main.table_info=%s" % sql_quote(name))]
    if not cols:
        return None
    return quoted_name(name) + "(" + ",".join(
        quoted_name((c or b"").decode("utf-8", "surrogateescape")) for c in cols) + ")"


def sql_quote(s):
    return "'" + s.replace("'", "''") + "'"


def schema(shell, args):
    db = shell.open()
    name = args[0] if args else None
    where = ""
    params = ()
    if name is not None:
        glob = any(c in name for c in "*?[")
        where = "lower(tbl_name) %s ? %s AND " % ("GLOB" if glob else "LIKE",
                                                  "" if glob else "ESCAPE '\\'")
        params = (name,)
    try:
        rows = db.execute("SELECT sql, type, name FROM sqlite_schema WHERE " + where +
                          "sql IS NOT NULL ORDER BY rowid", params).fetchall()
    except sqlite3.Error as e:
        err("Error: " + str(e))
        return 1
    for sql, kind, obj in rows:
        sql = sql.decode("utf-8", "surrogateescape")
        if kind == b"view" and sql.startswith("CREATE VIEW "):
            fake = fake_schema(db, obj.decode("utf-8", "surrogateescape"))
            if fake:
                sql += "\n/* %s */" % fake
        shell.out.write(schema_line(sql).encode("utf-8", "surrogateescape"))
    return 0


def schema_line(z):
    if "/*" in z or "--" in z:
        for term in ("", "*/", "\n"):
            if sqlite3.complete_statement(z + term + ";"):
                z = z + term
                break
    if re.match(r"CREATE TABLE ['\"]", z):
        return "CREATE TABLE IF NOT EXISTS %s;\n" % z[13:]
    return z + ";\n"


def dump(shell, args):
    """`.dump`: the database (or the tables named by LIKE patterns) as SQL, as 3.40 writes it."""
    data_only = no_sys = newlines = False
    likes = []
    for a in args:
        if a.startswith("-"):
            opt = a.lstrip("-")
            if opt == "data-only":
                data_only = True
            elif opt == "nosys":
                no_sys = True
            elif opt == "newlines":
                newlines = True
            else:
                err('Unknown option "%s" on ".dump"' % a)
                return 1
        else:
            likes.append(
                "name LIKE %s ESCAPE '\\' OR EXISTS (  SELECT 1 FROM sqlite_schema WHERE "
                "    name LIKE %s ESCAPE '\\' AND    sql LIKE 'CREATE VIRTUAL TABLE%%' AND"
                "    substr(o.name, 1, length(name)+1) == (name||'_'))"
                % (sql_quote(a), sql_quote(a)))
    where = " OR ".join(likes) or "true"
    db = shell.open()
    w = shell.out.write
    if not data_only:
        w(b"PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n")
    errors = 0
    writable = False
    tables = db.execute("SELECT name, type, sql FROM sqlite_schema AS o WHERE (%s) AND "
                        "type=='table'  AND sql NOT NULL ORDER BY tbl_name='sqlite_sequence', "
                        "rowid" % where).fetchall()
    for name, kind, sql in tables:
        name = name.decode("utf-8", "surrogateescape")
        sql = sql.decode("utf-8", "surrogateescape")
        if name == "sqlite_sequence" and not no_sys:
            if not data_only:
                w(b"DELETE FROM sqlite_sequence;\n")
        elif re.fullmatch(r"sqlite_stat.", name) and not no_sys:
            if not data_only:
                w(b"ANALYZE sqlite_schema;\n")
        elif name.startswith("sqlite_"):
            continue
        elif data_only:
            pass
        elif sql.startswith("CREATE VIRTUAL TABLE"):
            if not writable:
                w(b"PRAGMA writable_schema=ON;\n")
                writable = True
            w(("INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table',"
               "%s,%s,0,%s);\n" % (sql_quote(name), sql_quote(name), sql_quote(sql)))
              .encode("utf-8", "surrogateescape"))
            continue
        else:
            w(schema_line(sql).encode("utf-8", "surrogateescape"))
        if kind != b"table":
            continue
        cols = [r[1].decode("utf-8", "surrogateescape")
                for r in db.execute("PRAGMA table_info=%s" % sql_quote(name))]
        if not cols:
            errors += 1
            continue
        target = quoted_name(name).encode("utf-8", "surrogateescape")
        select = "SELECT %s FROM %s" % (",".join(quoted_name(c) for c in cols), quoted_name(name))
        try:
            for row in db.execute(select):
                w(b"INSERT INTO " + target + b" VALUES(" +
                  b",".join(insert_value(v, newlines) for v in row) + b");\n")
        except sqlite3.Error:
            errors += 1
    if not data_only:
        for (sql,) in db.execute("SELECT sql FROM sqlite_schema AS o WHERE (%s) AND sql NOT NULL"
                                 "  AND type IN ('index','trigger','view')" % where):
            sql = c_string(sql)
            w(sql + (b"\n;\n" if b"--" in sql else b";\n"))
    if writable:
        w(b"PRAGMA writable_schema=OFF;\n")
    if not data_only:
        w(b"ROLLBACK; -- due to errors\n" if errors else b"COMMIT;\n")
    return 0


def insert_value(v, newlines):
    """A value as `.dump` writes it in an INSERT (shell.c's insert mode)."""
    if v is None:
        return b"NULL"
    if isinstance(v, float):
        return real_literal(v, whole=True)
    if isinstance(v, int):
        return str(int(v)).encode()
    if isinstance(v, Text):
        z = c_string(v)
        return quoted_string(z) if newlines else quoted_escaped_string(z)
    return b"X'" + bytes(v).hex().encode() + b"'"


def unused_string(z, a, b):
    if a not in z:
        return a
    if b not in z:
        return b
    i = 0
    while True:
        made = b"(%s%d)" % (a, i)
        i += 1
        if made not in z:
            return made


def quoted_escaped_string(z):
    """3.40's `output_quoted_escaped_string`: newlines and CRs through `replace()`."""
    if b"\n" not in z and b"\r" not in z:
        return quoted_string(z)
    nl = unused_string(z, b"\\n", b"\\012") if b"\n" in z else None
    cr = unused_string(z, b"\\r", b"\\015") if b"\r" in z else None
    body = z.replace(b"'", b"''")
    if nl:
        body = body.replace(b"\n", nl)
    if cr:
        body = body.replace(b"\r", cr)
    out = (b"replace(" if nl else b"") + (b"replace(" if cr else b"") + b"'" + body + b"'"
    if cr:
        out += b",'" + cr + b"',char(13))"
    if nl:
        out += b",'" + nl + b"',char(10))"
    return out


def import_file(shell, args):
    csv_mode = shell.mode == "csv"
    explicit = None
    skip = 0
    names = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and len(a) > 1:
            opt = a.lstrip("-")
            if opt == "csv":
                csv_mode, explicit = True, "csv"
            elif opt == "ascii":
                csv_mode, explicit = False, "ascii"
            elif opt == "skip" and i + 1 < len(args):
                i += 1
                skip = int(args[i]) if args[i].isdigit() else 0
            elif opt == "v":
                pass
            elif opt == "schema":
                i += 1
            else:
                err('ERROR: unknown option: "%s".  Usage:' % a)
                return 1
        else:
            names.append(a)
        i += 1
    if len(names) != 2:
        err("ERROR: missing FILE argument. Usage:" if not names else
            "ERROR: missing TABLE argument. Usage:")
        return 1
    path, table = names
    if not explicit and shell.mode == "csv" and shell.row_sep == b"\r\n":
        # As 3.40 does: the output's CSV row separator becomes the input's, for good.
        shell.row_sep = b"\n"
    col_sep = b"," if explicit == "csv" else shell.col_sep
    row_sep = b"\n" if explicit == "csv" else shell.row_sep
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        err('Error: cannot open "%s"' % path)
        return 1
    records = read_records(data, col_sep, row_sep, csv_mode)
    db = shell.open()
    exists = db.execute("SELECT 1 FROM sqlite_schema WHERE name = ? AND type IN "
                        "('table','view')", (table,)).fetchone()
    for _ in range(skip):
        if records:
            records.pop(0)
    if not exists:
        if not records:
            err("%s: empty file" % path)
            return 1
        _, header = records.pop(0)
        create = 'CREATE TABLE "main"."%s"(\n%s)' % (
            table.replace('"', '""'),
            ", ".join('"%s" TEXT' % h.decode("utf-8", "surrogateescape").replace('"', '""')
                      for h in header))
        try:
            db.execute(create)
        except sqlite3.Error as e:
            err("CREATE TABLE \"main\".\"%s\"(...) failed: %s" % (table, e))
            return 1
    ncol = len(db.execute('PRAGMA main.table_info("%s")' % table.replace('"', '""')).fetchall())
    insert = 'INSERT INTO "main"."%s" VALUES(%s)' % (table.replace('"', '""'),
                                                   ",".join("?" * ncol))
    db.execute("BEGIN")
    try:
        for line, fields in records:
            if fields == [b""] and ncol > 1:
                continue
            if len(fields) < ncol:
                err("%s:%d: expected %d columns but found %d - filling the rest with NULL"
                    % (path, line, ncol, len(fields)))
            elif len(fields) > ncol:
                err("%s:%d: expected %d columns but found %d - extras ignored"
                    % (path, line, ncol, len(fields)))
            values = [f.decode("utf-8", "surrogateescape") for f in fields[:ncol]]
            db.execute(insert, values + [None] * (ncol - len(values)))
    finally:
        db.execute("COMMIT")
    return 0


def read_records(data, col_sep, row_sep, csv_mode):
    """The records of an import file, each with the line it starts on."""
    records = []
    i = 0
    line = 1
    n = len(data)
    while i < n:
        start_line = line
        fields = []
        while True:
            field = bytearray()
            if csv_mode and i < n and data[i] == 0x22:
                i += 1
                while i < n:
                    if data[i] == 0x22:
                        if data[i + 1:i + 2] == b'"':
                            field.append(0x22)
                            i += 2
                            continue
                        i += 1
                        break
                    if data[i] == 0x0A:
                        line += 1
                    field.append(data[i])
                    i += 1
                while i < n and not data.startswith(col_sep, i) and not data.startswith(row_sep, i):
                    field.append(data[i])
                    i += 1
            else:
                while i < n and not data.startswith(col_sep, i) and not data.startswith(row_sep, i):
                    field.append(data[i])
                    i += 1
                if csv_mode and field.endswith(b"\r") and data.startswith(row_sep, i):
                    field = field[:-1]
            fields.append(bytes(field))
            if i < n and data.startswith(col_sep, i):
                i += len(col_sep)
                continue
            if i < n:
                i += len(row_sep)
                line += 1
            break
        records.append((start_line, fields))
    return records


# ---------------------------------------------------------------------------------------------
# Input.


def process_input(shell, stream):
    errors = 0
    sql = ""
    start = 0
    lineno = 0
    for raw in stream:
        lineno += 1
        line = raw.decode("utf-8", "surrogateescape").rstrip("\n")
        if not sql:
            if not line.strip():
                continue
            if line[:1] in ".#":
                if line[0] == "." and dot_command(shell, line):
                    errors += 1
                if errors and shell.bail:
                    break
                continue
            if line.strip().lower() in ("go", "/"):
                continue
            sql = line.lstrip()
            start = lineno
        elif line.strip().lower() in ("go", "/") and sqlite3.complete_statement(sql + ";"):
            sql += ";"
        else:
            sql += "\n" + line
        if sqlite3.complete_statement(sql):
            errors += run_one(shell, sql, start)
            sql = ""
            if errors and shell.bail:
                break
        elif is_comment_only(sql):
            sql = ""
    else:
        if sql and not is_comment_only(sql):
            errors += run_one(shell, sql, start)
    return 1 if errors else 0


def run_one(shell, sql, start):
    failed = shell.exec_sql(sql)
    if not failed:
        return 0
    _, msg = failed
    if msg.startswith("in prepare, "):
        kind, tail = "Parse error", msg[12:]
    elif msg.startswith("stepping, "):
        kind, tail = "Runtime error", msg[10:]
    else:
        kind, tail = "Error", msg
    err("%s near line %d: %s" % (kind, start, tail))
    return 1


USAGE = """Usage: sqlite3 [OPTIONS] FILENAME [SQL...]
FILENAME is the name of an SQLite database. A new database is created
if the file does not previously exist. Defaults to :memory:.
OPTIONS include:
   -bail                stop after hitting an error
   -box                 set output mode to 'box'
   -cmd COMMAND         run "COMMAND" before reading stdin
   -column              set output mode to 'column'
   -csv                 set output mode to 'csv'
   -header              turn headers on
   -help                show this message
   -json                set output mode to 'json'
   -line                set output mode to 'line'
   -list                set output mode to 'list'
   -markdown            set output mode to 'markdown'
   -newline SEP         set output row separator. Default: '\\n'
   -noheader            turn headers off
   -nullvalue TEXT      set text string for NULL values. Default ''
   -quote               set output mode to 'quote'
   -readonly            open the database read-only
   -separator SEP       set output column separator. Default: '|'
   -table               set output mode to 'table'
   -tabs                set output mode to 'tabs'
   -version             show SQLite version
"""

OPTION_MODES = {"-column": "column", "-csv": "csv", "-json": "json", "-line": "line",
                "-list": "list", "-table": "table", "-box": "box", "-markdown": "markdown",
                "-quote": "quote", "-tabs": "tabs"}


def main(argv):
    shell = Shell()
    files = []
    cmds = []
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if not a.startswith("-"):
            files.append(a)
            continue
        opt = "-" + a.lstrip("-")
        needs = opt in ("-separator", "-newline", "-nullvalue", "-cmd")
        if needs:
            if i >= len(argv):
                err("sqlite3: Error: missing argument to %s" % a)
                return 1
            value = argv[i]
            i += 1
        if opt in OPTION_MODES:
            set_mode(shell, OPTION_MODES[opt], dot=False)
        elif opt == "-header" or opt == "-headers":
            shell.header, shell.header_set = True, True
        elif opt == "-noheader":
            shell.header, shell.header_set = False, True
        elif opt == "-separator":
            shell.col_sep = resolve_backslashes(value).encode()
        elif opt == "-newline":
            shell.row_sep = resolve_backslashes(value).encode()
        elif opt == "-nullvalue":
            shell.null = resolve_backslashes(value).encode()
        elif opt == "-cmd":
            cmds.append(value)
        elif opt == "-bail":
            shell.bail = True
        elif opt in ("-batch", "-interactive"):
            pass
        elif opt == "-readonly":
            shell.readonly = True
        elif opt == "-version":
            print("%s (SQLite %s in the Python runtime)" % (VERSION, sqlite3.sqlite_version))
            return 0
        elif opt == "-help":
            sys.stderr.write(USAGE)
            return 1
        else:
            err("sqlite3: Error: unknown option: %s\nUse -help for a list of options." % a)
            return 1
    if files:
        shell.db_path = files[0]
    commands = files[1:]
    try:
        for cmd in cmds:
            if cmd.startswith("."):
                rc = dot_command(shell, cmd)
                if rc and shell.bail:
                    return rc
            else:
                failed = shell.exec_sql(cmd)
                if failed:
                    err("Error: " + failed[1])
                    if shell.bail:
                        return failed[0] or 1
        if commands:
            for cmd in commands:
                if cmd.startswith("."):
                    rc = dot_command(shell, cmd)
                    if rc:
                        return rc
                else:
                    failed = shell.exec_sql(cmd)
                    if failed:
                        err("Error: " + failed[1])
                        return failed[0] or 1
            return 0
        return process_input(shell, sys.stdin.buffer)
    except Quit as q:
        return q.args[0]


if __name__ == "__main__":
    try:
        status = main(sys.argv[1:])
    except KeyboardInterrupt:
        status = 130
    except Exception as e:  # what the shell has no words for: said in one line, not a traceback
        err("Error: %s" % (e or type(e).__name__))
        status = 1
    sys.stdout.flush()
    raise SystemExit(status)
