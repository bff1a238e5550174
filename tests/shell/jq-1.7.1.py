"""`jq` 1.7.1 for recording the shell's jq cases: jq's command line (a port of jq 1.7.1's
src/main.c) over the libjq 1.7.1 that PyPI's `jq==1.8.0` bundles in its extension module,
called through ctypes.

Debian 12 ships jq 1.6; the cases are recorded from 1.7.1, the version most systems ship
now, and no registry has its binary. `.ci/run` installs this file as /usr/bin/jq (Debian's is
diverted to /usr/bin/jq.debian) with the interpreter that has `jq` installed, so that bash
finds it on the cases' PATH.

Output goes through C's own `stdout` (jv_dumpf, fwrite), so its buffering is jq's: a
case that sends stderr and stdout to one pipe sees them in jq's order.
"""

import ctypes
import locale
import os
import signal
import sys

import jq as _jq_module

VERSION = "1.7.1"
PROGNAME = "jq"

# enum jv_kind
KIND_INVALID, KIND_NULL, KIND_FALSE, KIND_TRUE, KIND_NUMBER, KIND_STRING = range(6)
# enum jv_print_flags
PRINT_PRETTY, PRINT_ASCII, PRINT_COLOR, PRINT_SORTED, PRINT_TAB = 1, 2, 4, 8, 64
# enum jv_parse_flags
PARSE_SEQ, PARSE_STREAMING, PARSE_STREAM_ERRORS = 1, 2, 4
JQ_DEBUG_TRACE, JQ_DEBUG_TRACE_ALL = 1, 3

SLURP, RAW_INPUT, PROVIDE_NULL, RAW_OUTPUT, RAW_OUTPUT0 = 1, 2, 4, 8, 16
ASCII_OUTPUT, COLOR_OUTPUT, NO_COLOR_OUTPUT, SORTED_OUTPUT = 32, 64, 128, 256
FROM_FILE, RAW_NO_LF, UNBUFFERED_OUTPUT, EXIT_STATUS, SEQ = 512, 1024, 2048, 4096, 16384
DUMP_DISASM = 65536

JQ_OK, JQ_OK_NULL_KIND, JQ_ERROR_SYSTEM, JQ_ERROR_COMPILE = 0, -1, 2, 3
JQ_OK_NO_OUTPUT, JQ_ERROR_UNKNOWN = -4, 5

# What jq 1.7.1 prints for --build-configuration is its configure line; this build's is
# the Python package's.
JQ_CONFIG = "jq.py 1.8.0 (libjq 1.7.1)"


class Jv(ctypes.Structure):
    """libjq's `jv`, passed by value. The union of a pointer and a double is an integer
    here: both are 8 bytes and the ABI passes the struct in integer registers."""

    _fields_ = [
        ("kind_flags", ctypes.c_ubyte),
        ("pad_", ctypes.c_ubyte),
        ("offset", ctypes.c_ushort),
        ("size", ctypes.c_int),
        ("u", ctypes.c_uint64),
    ]


lib = ctypes.CDLL(_jq_module.__file__)
libc = ctypes.CDLL(None)
P = ctypes.c_void_p
I = ctypes.c_int
S = ctypes.c_char_p
MSG_CB = ctypes.CFUNCTYPE(None, P, Jv)


def fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


jv_get_kind = fn("jv_get_kind", I, Jv)
jv_copy = fn("jv_copy", Jv, Jv)
jv_free = fn("jv_free", None, Jv)
jv_null = fn("jv_null", Jv)
jv_array = fn("jv_array", Jv)
jv_array_append = fn("jv_array_append", Jv, Jv, Jv)
jv_object = fn("jv_object", Jv)
jv_object_set = fn("jv_object_set", Jv, Jv, Jv, Jv)
jv_object_has = fn("jv_object_has", I, Jv, Jv)
jv_string = fn("jv_string", Jv, S)
jv_string_sized = fn("jv_string_sized", Jv, S, I)
jv_string_value = fn("jv_string_value", P, Jv)
jv_string_length_bytes = fn("jv_string_length_bytes", I, Jv)
jv_number_value = fn("jv_number_value", ctypes.c_double, Jv)
jv_parse = fn("jv_parse", Jv, S)
jv_load_file = fn("jv_load_file", Jv, S, I)
jv_invalid_has_msg = fn("jv_invalid_has_msg", I, Jv)
jv_invalid_get_msg = fn("jv_invalid_get_msg", Jv, Jv)
jv_dump_string = fn("jv_dump_string", Jv, Jv, I)
jv_dumpf = fn("jv_dumpf", None, Jv, P, I)
jv_parser_new = fn("jv_parser_new", P, I)
jq_init = fn("jq_init", P)
jq_set_attr = fn("jq_set_attr", None, P, Jv, Jv)
jq_realpath = fn("jq_realpath", Jv, Jv)
jq_compile_args = fn("jq_compile_args", I, P, S, Jv)
jq_dump_disassembly = fn("jq_dump_disassembly", None, P, I)
jq_start = fn("jq_start", None, P, Jv, I)
jq_next = fn("jq_next", Jv, P)
jq_halted = fn("jq_halted", I, P)
jq_get_exit_code = fn("jq_get_exit_code", Jv, P)
jq_get_error_message = fn("jq_get_error_message", Jv, P)
jq_set_input_cb = fn("jq_set_input_cb", None, P, P, P)
jq_set_debug_cb = fn("jq_set_debug_cb", None, P, MSG_CB, P)
jq_set_stderr_cb = fn("jq_set_stderr_cb", None, P, MSG_CB, P)
jq_set_colors = fn("jq_set_colors", I, S)
jq_util_input_init = fn("jq_util_input_init", P, P, P)
jq_util_input_add_input = fn("jq_util_input_add_input", None, P, S)
jq_util_input_set_parser = fn("jq_util_input_set_parser", None, P, P, I)
jq_util_input_errors = fn("jq_util_input_errors", I, P)
jq_util_input_next_input = fn("jq_util_input_next_input", Jv, P)
jq_util_input_get_position = fn("jq_util_input_get_position", Jv, P)
jq_util_input_free = fn("jq_util_input_free", None, P)
jq_teardown = fn("jq_teardown", None, P)
next_input_cb = ctypes.cast(lib.jq_util_input_next_input_cb, P)

libc.fwrite.argtypes = [P, ctypes.c_size_t, ctypes.c_size_t, P]
libc.fflush.argtypes = [P]
libc.fclose.argtypes = [P]
libc.ferror.argtypes = [P]
C_STDOUT = P.in_dll(libc, "stdout").value
C_STDERR = P.in_dll(libc, "stderr").value


def valid(v):
    return jv_get_kind(v) != KIND_INVALID


def string_bytes(v):
    """The bytes of a jv string (not consumed)."""
    n = jv_string_length_bytes(jv_copy(v))
    return ctypes.string_at(jv_string_value(v), n)


def write(data, stream):
    if data:
        libc.fwrite(data, 1, len(data), stream)


def say(text):
    """fprintf(stderr, ...): unbuffered, as C's stderr."""
    write(text.encode("utf-8", "surrogateescape"), C_STDERR)


def die():
    say(f"Use {PROGNAME} --help for help with command-line options,\n")
    say("or see the jq manpage, or online docs  at https://jqlang.github.io/jq\n")
    finish(2)


def finish(code):
    libc.fflush(C_STDOUT)
    os._exit(code)


USAGE = (
    "jq - commandline JSON processor [version {v}]\n"
    "\nUsage:\t{p} [options] <jq filter> [file...]\n"
    "\t{p} [options] --args <jq filter> [strings...]\n"
    "\t{p} [options] --jsonargs <jq filter> [JSON_TEXTS...]\n\n"
    "jq is a tool for processing JSON inputs, applying the given filter to\n"
    "its JSON text inputs and producing the filter's results as JSON on\n"
    "standard output.\n\n"
    "The simplest filter is ., which copies jq's input to its output\n"
    "unmodified except for formatting. For more advanced filters see\n"
    'the jq(1) manpage ("man jq") and/or https://jqlang.github.io/jq/.\n\n'
    "Example:\n\n\t$ echo '{{\"foo\": 0}}' | jq .\n"
    '\t{{\n\t  "foo": 0\n\t}}\n\n'
)

OPTIONS_HELP = """Command options:
  -n, --null-input          use `null` as the single input value;
  -R, --raw-input           read each line as string instead of JSON;
  -s, --slurp               read all inputs into an array and use it as
                            the single input value;
  -c, --compact-output      compact instead of pretty-printed output;
  -r, --raw-output          output strings without escapes and quotes;
      --raw-output0         implies -r and output NUL after each output;
  -j, --join-output         implies -r and output without newline after
                            each output;
  -a, --ascii-output        output strings by only ASCII characters
                            using escape sequences;
  -S, --sort-keys           sort keys of each object on output;
  -C, --color-output        colorize JSON output;
  -M, --monochrome-output   disable colored output;
      --tab                 use tabs for indentation;
      --indent n            use n spaces for indentation (max 7 spaces);
      --unbuffered          flush output stream after each output;
      --stream              parse the input value in streaming fashion;
      --stream-errors       implies --stream and report parse error as
                            an array;
      --seq                 parse input/output as application/json-seq;
  -f, --from-file file      load filter from the file;
  -L directory              search modules from the directory;
      --arg name value      set $name to the string value;
      --argjson name value  set $name to the JSON value;
      --slurpfile name file set $name to an array of JSON values read
                            from the file;
      --rawfile name file   set $name to string contents of file;
      --args                consume remaining arguments as positional
                            string values;
      --jsonargs            consume remaining arguments as positional
                            JSON values;
  -e, --exit-status         set exit status code based on the output;
  -V, --version             show the version;
  --build-configuration     show jq's build configuration;
  -h, --help                show the help;
  --                        terminates argument processing;

Named arguments are also available as $ARGS.named[], while
positional arguments are available as $ARGS.positional[].
"""


def usage(code, keep_it_short):
    stream = C_STDOUT if code == 0 else C_STDERR
    text = USAGE.format(v=VERSION, p=PROGNAME)
    if keep_it_short:
        text += f"For listing the command options, use {PROGNAME} --help.\n"
    else:
        text += OPTIONS_HELP
    write(text.encode(), stream)
    finish(code)


def isoptish(text):
    return len(text) > 1 and text[0] == "-" and (text[1] == "-" or text[1].isalpha())


class ShortCount:
    n = 0


def isoption(text, shortopt, longopt, count):
    if text[0] != "-" or text[1:2] == "-":
        count.n = 0
    if text[0] != "-":
        return False
    if text[1:2] == "-":
        return text[2:] == longopt
    if not shortopt:
        return False
    if shortopt in text:
        count.n += 1
        return True
    return False


def skip_shebang(p):
    if not p.startswith(b"#!"):
        return p
    n = p.find(b"\n")
    if n < 0 or p[n + 1 : n + 2] != b"#":
        return p
    m = p.find(b"\n", n + 1)
    if m < 0 or p[m + 1 : m + 2] in (b"#", b"") or p[m - 1 : m] != b"\\" or p[m - 2 : m - 1] == b"\\":
        return p
    k = p.find(b"\n", m + 1)
    if k < 0:
        return p
    return p[k + 1 :]


def process(jq, value, flags, dumpopts, options):
    ret = JQ_OK_NO_OUTPUT
    jq_start(jq, value, flags)
    while True:
        result = jq_next(jq)
        if not valid(result):
            break
        if (options & RAW_OUTPUT) and jv_get_kind(result) == KIND_STRING:
            if options & ASCII_OUTPUT:
                jv_dumpf(jv_copy(result), C_STDOUT, PRINT_ASCII)
            elif (options & RAW_OUTPUT0) and b"\0" in string_bytes(result):
                jv_free(result)
                result = jv_invalid_with_msg(
                    jv_string(b"Cannot dump a string containing NUL with --raw-output0 option")
                )
                break
            else:
                write(string_bytes(result), C_STDOUT)
            ret = JQ_OK
            jv_free(result)
        else:
            kind = jv_get_kind(result)
            ret = JQ_OK_NULL_KIND if kind in (KIND_FALSE, KIND_NULL) else JQ_OK
            if options & SEQ:
                write(b"\x1e", C_STDOUT)
            jv_dumpf(result, C_STDOUT, dumpopts)
        if not options & RAW_NO_LF:
            write(b"\n", C_STDOUT)
        if options & RAW_OUTPUT0:
            write(b"\0", C_STDOUT)
        if options & UNBUFFERED_OUTPUT:
            libc.fflush(C_STDOUT)
    if jq_halted(jq):
        exit_code = jq_get_exit_code(jq)
        if not valid(exit_code):
            ret = JQ_OK
        elif jv_get_kind(exit_code) == KIND_NUMBER:
            ret = int(jv_number_value(exit_code))
        else:
            ret = JQ_ERROR_UNKNOWN
        jv_free(exit_code)
        message = jq_get_error_message(jq)
        kind = jv_get_kind(message)
        if kind == KIND_STRING:
            write(string_bytes(message), C_STDERR)
        elif kind == KIND_NULL:
            pass
        elif kind != KIND_INVALID:
            message = jv_dump_string(message, 0)
            write(string_bytes(message) + b"\n", C_STDERR)
        jv_free(message)
    elif jv_invalid_has_msg(jv_copy(result)):
        msg = jv_invalid_get_msg(jv_copy(result))
        pos = string_bytes(jq_util_input_get_position(jq)).decode("utf-8", "surrogateescape")
        if jv_get_kind(msg) == KIND_STRING:
            say(f"jq: error (at {pos}): ")
            write(string_bytes(msg) + b"\n", C_STDERR)
        else:
            msg = jv_dump_string(msg, 0)
            say(f"jq: error (at {pos}) (not a string): ")
            write(string_bytes(msg) + b"\n", C_STDERR)
        ret = JQ_ERROR_UNKNOWN
    return ret


jv_invalid_with_msg = fn("jv_invalid_with_msg", Jv, Jv)
jv_array_of = lambda *items: _array(items)  # noqa: E731


def _array(items):
    a = jv_array()
    for item in items:
        a = jv_array_append(a, item)
    return a


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    locale.setlocale(locale.LC_ALL, "")
    ret = JQ_OK_NO_OUTPUT
    parser_flags = 0
    nfiles = 0
    last_result = -1
    options = 0
    args = jv_array()
    program_arguments = jv_object()
    jq = jq_init()
    dumpopts = 2 << 8 | PRINT_PRETTY
    program = None
    input_state = jq_util_input_init(None, None)
    strings = json = done = False
    jq_flags = 0
    lib_search_paths = None
    count = ShortCount()
    arg = lambda s: s.encode("utf-8", "surrogateescape")  # noqa: E731

    def out(code):
        nonlocal ret
        ret = code
        raise StopIteration

    i = 1
    try:
        while i < len(argv):
            text = argv[i]
            count.n = 0
            if done or not isoptish(text):
                if program is None:
                    program = text
                elif strings:
                    args = jv_array_append(args, jv_string(arg(text)))
                elif json:
                    v = jv_parse(arg(text))
                    if not valid(v):
                        say(f"{PROGNAME}: invalid JSON text passed to --jsonargs\n")
                        die()
                    args = jv_array_append(args, v)
                else:
                    jq_util_input_add_input(input_state, arg(text))
                    nfiles += 1
                i += 1
                continue
            if text == "--":
                done = True
                i += 1
                continue
            if text[1] == "L":
                if lib_search_paths is None:
                    lib_search_paths = jv_array()
                if len(text) > 2:
                    lib_search_paths = jv_array_append(
                        lib_search_paths, jq_realpath(jv_string(arg(text[2:])))
                    )
                elif i >= len(argv) - 1:
                    say("-L takes a parameter: (e.g. -L /search/path or -L/search/path)\n")
                    die()
                else:
                    lib_search_paths = jv_array_append(
                        lib_search_paths, jq_realpath(jv_string(arg(argv[i + 1])))
                    )
                    i += 1
                i += 1
                continue
            handled = False
            for short, long, flag in (
                ("s", "slurp", SLURP),
                ("r", "raw-output", RAW_OUTPUT),
                (None, "raw-output0", RAW_OUTPUT | RAW_NO_LF | RAW_OUTPUT0),
                ("j", "join-output", RAW_OUTPUT | RAW_NO_LF),
                ("c", "compact-output", 0),
                ("C", "color-output", COLOR_OUTPUT),
                ("M", "monochrome-output", NO_COLOR_OUTPUT),
                ("a", "ascii-output", ASCII_OUTPUT),
            ):
                if isoption(text, short, long, count):
                    options |= flag
                    if long == "compact-output":
                        dumpopts &= ~(PRINT_TAB | (7 << 8) | PRINT_PRETTY)
                    if not count.n:
                        handled = True
                        break
            if handled:
                i += 1
                continue
            if isoption(text, None, "unbuffered", count):
                options |= UNBUFFERED_OUTPUT
                i += 1
                continue
            for short, long, flag in (
                ("S", "sort-keys", SORTED_OUTPUT),
                ("R", "raw-input", RAW_INPUT),
                ("n", "null-input", PROVIDE_NULL),
                ("f", "from-file", FROM_FILE),
                ("b", "binary", 0),
            ):
                if isoption(text, short, long, count):
                    options |= flag
                    if not count.n and long != "binary":
                        handled = True
                        break
            if handled:
                i += 1
                continue
            if isoption(text, None, "tab", count):
                dumpopts &= ~(7 << 8)
                dumpopts |= PRINT_TAB | PRINT_PRETTY
                i += 1
                continue
            if isoption(text, None, "indent", count):
                if i >= len(argv) - 1:
                    say(f"{PROGNAME}: --indent takes one parameter\n")
                    die()
                dumpopts &= ~(PRINT_TAB | (7 << 8) | PRINT_PRETTY)
                indent = atoi(argv[i + 1])
                if indent < -1 or indent > 7:
                    say(f"{PROGNAME}: --indent takes a number between -1 and 7\n")
                    die()
                dumpopts |= indent_flags(indent)
                i += 2
                continue
            if isoption(text, None, "seq", count):
                options |= SEQ
                i += 1
                continue
            if isoption(text, None, "stream", count):
                parser_flags |= PARSE_STREAMING
                i += 1
                continue
            if isoption(text, None, "stream-errors", count):
                parser_flags |= PARSE_STREAMING | PARSE_STREAM_ERRORS
                i += 1
                continue
            if isoption(text, "e", "exit-status", count):
                options |= EXIT_STATUS
                if not count.n:
                    i += 1
                    continue
            if isoption(text, None, "args", count):
                strings, json = True, False
                i += 1
                continue
            if isoption(text, None, "jsonargs", count):
                strings, json = False, True
                i += 1
                continue
            if isoption(text, None, "arg", count):
                if i >= len(argv) - 2:
                    say(f"{PROGNAME}: --arg takes two parameters (e.g. --arg varname value)\n")
                    die()
                name = jv_string(arg(argv[i + 1]))
                if not jv_object_has(jv_copy(program_arguments), jv_copy(name)):
                    program_arguments = jv_object_set(
                        program_arguments, name, jv_string(arg(argv[i + 2]))
                    )
                i += 3
                continue
            if isoption(text, None, "argjson", count):
                if i >= len(argv) - 2:
                    say(
                        f"{PROGNAME}: --argjson takes two parameters (e.g. --argjson varname text)\n"
                    )
                    die()
                name = jv_string(arg(argv[i + 1]))
                if not jv_object_has(jv_copy(program_arguments), jv_copy(name)):
                    v = jv_parse(arg(argv[i + 2]))
                    if not valid(v):
                        say(f"{PROGNAME}: invalid JSON text passed to --argjson\n")
                        die()
                    program_arguments = jv_object_set(program_arguments, name, v)
                i += 3
                continue
            if isoption(text, None, "rawfile", count) or isoption(
                text, None, "slurpfile", count
            ):
                raw = isoption(text, None, "rawfile", count)
                which = "rawfile" if raw else "slurpfile"
                if i >= len(argv) - 2:
                    say(
                        f"{PROGNAME}: --{which} takes two parameters (e.g. --{which} varname filename)\n"
                    )
                    die()
                name = jv_string(arg(argv[i + 1]))
                if not jv_object_has(jv_copy(program_arguments), jv_copy(name)):
                    data = jv_load_file(arg(argv[i + 2]), 1 if raw else 0)
                    if not valid(data):
                        msg = jv_invalid_get_msg(data)
                        say(f"{PROGNAME}: Bad JSON in --{which} {argv[i + 1]} {argv[i + 2]}: ")
                        write(string_bytes(msg) + b"\n", C_STDERR)
                        out(JQ_ERROR_SYSTEM)
                    program_arguments = jv_object_set(program_arguments, name, data)
                i += 3
                continue
            if isoption(text, None, "debug-dump-disasm", count):
                options |= DUMP_DISASM
                i += 1
                continue
            if isoption(text, None, "debug-trace=all", count):
                jq_flags |= JQ_DEBUG_TRACE_ALL
                if not count.n:
                    i += 1
                    continue
            if isoption(text, None, "debug-trace", count):
                jq_flags |= JQ_DEBUG_TRACE
                i += 1
                continue
            if isoption(text, "h", "help", count):
                usage(0, False)
            if isoption(text, "V", "version", count):
                write(f"jq-{VERSION}\n".encode(), C_STDOUT)
                out(JQ_OK)
            if isoption(text, None, "build-configuration", count):
                write(f"{JQ_CONFIG}\n".encode(), C_STDOUT)
                out(JQ_OK)
            if isoption(text, None, "run-tests", count):
                say(f"{PROGNAME}: --run-tests is not in this build\n")
                out(JQ_ERROR_SYSTEM)
            if len(text) != count.n + 1:
                say(f"{PROGNAME}: Unknown option {text}\n")
                die()
            i += 1

        # Never a terminal when recording: no colours unless asked.
        if options & SORTED_OUTPUT:
            dumpopts |= PRINT_SORTED
        if options & ASCII_OUTPUT:
            dumpopts |= PRINT_ASCII
        if options & COLOR_OUTPUT:
            dumpopts |= PRINT_COLOR
        if options & NO_COLOR_OUTPUT:
            dumpopts &= ~PRINT_COLOR
        colors = os.environ.get("JQ_COLORS")
        if colors is not None and not jq_set_colors(arg(colors)):
            say("Failed to set $JQ_COLORS\n")
        if lib_search_paths is None:
            lib_search_paths = _array(
                [jv_string(b"~/.jq"), jv_string(b"$ORIGIN/../lib/jq"), jv_string(b"$ORIGIN/../lib")]
            )
        jq_set_attr(jq, jv_string(b"JQ_LIBRARY_PATH"), lib_search_paths)
        jq_set_attr(jq, jv_string(b"JQ_ORIGIN"), jv_string(b"/usr/bin"))
        jq_set_attr(jq, jv_string(b"VERSION_DIR"), jv_string(VERSION.encode()))
        if program is None and (not os.isatty(1) or not os.isatty(0)):
            program = "."
        if program is None:
            usage(2, True)

        if options & FROM_FILE:
            data = jv_load_file(arg(program), 1)
            if not valid(data):
                msg = jv_invalid_get_msg(data)
                say(f"{PROGNAME}: ")
                write(string_bytes(msg) + b"\n", C_STDERR)
                out(JQ_ERROR_SYSTEM)
            origin = os.path.dirname(program) or "."
            jq_set_attr(jq, jv_string(b"PROGRAM_ORIGIN"), jq_realpath(jv_string(arg(origin))))
            code = skip_shebang(string_bytes(data))
        else:
            jq_set_attr(jq, jv_string(b"PROGRAM_ORIGIN"), jq_realpath(jv_string(b".")))
            code = arg(program)
        args = jv_object_set(
            jv_object_set(jv_object(), jv_string(b"positional"), args),
            jv_string(b"named"),
            jv_copy(program_arguments),
        )
        program_arguments = jv_object_set(program_arguments, jv_string(b"ARGS"), jv_copy(args))
        if not jv_object_has(jv_copy(program_arguments), jv_string(b"JQ_BUILD_CONFIGURATION")):
            program_arguments = jv_object_set(
                program_arguments,
                jv_string(b"JQ_BUILD_CONFIGURATION"),
                jv_string(JQ_CONFIG.encode()),
            )
        if not jq_compile_args(jq, code, jv_copy(program_arguments)):
            out(JQ_ERROR_COMPILE)
        if options & DUMP_DISASM:
            jq_dump_disassembly(jq, 0)
            write(b"\n", C_STDOUT)
        if options & SEQ:
            parser_flags |= PARSE_SEQ
        slurp = 1 if options & SLURP else 0
        if options & RAW_INPUT:
            jq_util_input_set_parser(input_state, None, slurp)
        else:
            jq_util_input_set_parser(input_state, jv_parser_new(parser_flags), slurp)
        jq_set_input_cb(jq, next_input_cb, input_state)

        def debug_cb(_data, value):
            jv_dumpf(
                _array([jv_string(b"DEBUG:"), value]), C_STDERR, dumpopts & ~PRINT_PRETTY
            )
            write(b"\n", C_STDERR)

        def stderr_cb(_data, value):
            if jv_get_kind(value) == KIND_STRING:
                write(string_bytes(value), C_STDERR)
            else:
                write(string_bytes(jv_dump_string(value, 0)), C_STDERR)

        callbacks = (MSG_CB(debug_cb), MSG_CB(stderr_cb))
        jq_set_debug_cb(jq, callbacks[0], None)
        jq_set_stderr_cb(jq, callbacks[1], None)
        if nfiles == 0:
            jq_util_input_add_input(input_state, b"-")
        if options & PROVIDE_NULL:
            ret = process(jq, jv_null(), jq_flags, dumpopts, options)
        else:
            while jq_util_input_errors(input_state) == 0:
                value = jq_util_input_next_input(input_state)
                if valid(value):
                    ret = process(jq, value, jq_flags, dumpopts, options)
                    if ret <= 0 and ret != JQ_OK_NO_OUTPUT:
                        last_result = 1 if ret != JQ_OK_NULL_KIND else 0
                    if jq_halted(jq):
                        break
                    continue
                if not jv_invalid_has_msg(jv_copy(value)):
                    break
                msg = jv_invalid_get_msg(value)
                if not options & SEQ:
                    ret = JQ_ERROR_UNKNOWN
                    say("jq: parse error: ")
                    write(string_bytes(msg) + b"\n", C_STDERR)
                    break
                say("jq: ignoring parse error: ")
                write(string_bytes(msg) + b"\n", C_STDERR)
        if jq_util_input_errors(input_state) != 0:
            ret = JQ_ERROR_SYSTEM
    except StopIteration:
        pass

    badwrite = libc.ferror(C_STDOUT)
    if libc.fclose(C_STDOUT) != 0 or badwrite:
        say(f"jq: error: writing output failed: {os.strerror(ctypes.get_errno())}\n")
        ret = JQ_ERROR_SYSTEM
    if options & EXIT_STATUS:
        if ret != JQ_OK_NO_OUTPUT:
            os._exit(abs(ret) & 0xFF)
        os._exit({-1: 4, 0: 1}.get(last_result, 0))
    os._exit(ret & 0xFF if ret > 0 else 0)


def atoi(text):
    """C's atoi: leading blanks, a sign, then digits; 0 for none."""
    text = text.lstrip(" \t\n\v\f\r")
    sign, digits = 1, ""
    if text[:1] in ("-", "+"):
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    for c in text:
        if not c.isdigit():
            break
        digits += c
    return sign * int(digits) if digits else 0


def indent_flags(n):
    if n < 0 or n > 7:
        return PRINT_TAB | PRINT_PRETTY
    return 0 if n == 0 else (n << 8) | PRINT_PRETTY


if __name__ == "__main__":
    main(sys.argv)
