/**
 * A small reader of shell command lines for the permission rules
 * (`tool_rules.ts`): the simple commands a line runs, each as its words
 * after the shell's quote removal, and whether the line could be read with
 * confidence. It reads as bash would: quotes (`'…'`, `"…"`, `$'…'`),
 * backslashes and line continuations, the operators that chain commands
 * (`;`, `&&`, `||`, `|`, `&`, newlines), subshells and groups, command and
 * process substitutions, here-documents, redirections and comments; and it
 * looks through what only leads into another command (assignments,
 * `command`, `env`, `sudo`, `timeout`, `xargs`, `sh -c '…'`, `eval`,
 * `find -exec` …).
 *
 * It never runs anything. What it cannot know without running the line (a
 * program named by a variable, a glob or a brace expansion, a `case`, an
 * unclosed quote) makes the line unclear: a rule that must refuse a
 * command cannot say the line is free of it.
 *
 * @module
 */

/** One word of a simple command. */
interface Word {
  /** The word after quote removal. */
  text: string;
  /** Whether running the line could make it something else (an expansion, a glob, a substitution). */
  dynamic: boolean;
}

/** What a line runs, as far as it can be read. */
export interface ReadLine {
  /**
   * Each simple command, as its words after quote removal, joined by one
   * space; with each form it runs once what leads into it is taken off
   * (`FOO=1 env -i rm x` gives `FOO=1 env -i rm x`, `env -i rm x`,
   * `rm x`), and with its program by its bare name (`/bin/rm x` → `rm x`).
   */
  commands: string[];
  /**
   * The forms above that hold a word known only when the line runs (an
   * expansion, a glob), each as its words before that one and a space
   * (`git push "$F"` → `git push `; `$P x` → the empty string): such a
   * command may be any command that starts so.
   */
  open: string[];
  /** Why the line could not be read with confidence, or null when it could. */
  unclear: string | null;
}

const OPERATOR_CHARS = new Set([";", "&", "|", "\n", "(", ")", "<", ">"]);
const BLANK = new Set([" ", "\t"]);
/** Words that only lead into the command after them, when they come first. */
const KEYWORDS = new Set([
  "!",
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "{",
  "}",
  "time",
]);
/** The most words that lead into one simple command (keywords, assignments, wrappers) read before the line is unclear. */
const MAX_FORMS = 64;
/** Deepest nesting of substitutions and `sh -c` read before the line is unclear. */
const MAX_DEPTH = 8;

/** Reads `line`: its simple commands and whether it was read with confidence. */
export function readCommandLine(line: string): ReadLine {
  const reader = new LineReader();
  reader.read(line, 0);
  return {
    commands: [...new Set(reader.commands)],
    open: [...new Set(reader.open)],
    unclear: reader.unclear,
  };
}

/** A here-document waiting for its body. */
interface Heredoc {
  delimiter: string;
  /** Whether its delimiter was unquoted, so that its body is expanded. */
  expands: boolean;
  /** Whether a shell runs it as its script. */
  script: boolean;
}

class LineReader {
  commands: string[] = [];
  open: string[] = [];
  unclear: string | null = null;
  /** Set while a simple command is read when it runs what comes on its input (`bash`, `source /dev/stdin`): the program's name. */
  #stdinRuns: string | null = null;

  #doubt(why: string) {
    this.unclear ??= why;
  }

  /** Reads a whole line (or the inside of a substitution) at nesting `depth`. */
  read(line: string, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.#doubt("it nests commands too deeply");
      return;
    }
    let words: Word[] = [];
    /** Here-documents whose bodies start after the next newline. */
    const heredocs: Heredoc[] = [];
    /** The here-strings and here-documents of the simple command being read. */
    let herestrings: Word[] = [];
    let ownDocs = 0;
    let i = 0;
    const end = () => {
      this.#stdinRuns = null;
      this.#simple(words, depth);
      const runs = this.#stdinRuns as string | null;
      if (runs !== null) {
        // A shell (or `source /dev/stdin`) runs what it reads from its
        // input: a here-string or a here-document is a line of its own;
        // a pipe or a file is known only when it runs.
        if (herestrings.length > 0) {
          for (const w of herestrings) {
            if (w.dynamic) {
              this.#doubt(`${runs} runs what is known only when it runs`);
            }
            this.read(w.text, depth + 1);
          }
        } else if (ownDocs > 0) {
          for (const doc of heredocs.slice(-ownDocs)) doc.script = true;
        } else {
          this.#doubt(`${runs} runs the commands it reads from its input`);
        }
      }
      words = [];
      herestrings = [];
      ownDocs = 0;
    };
    while (i < line.length) {
      const ch = line[i];
      if (BLANK.has(ch) || ch === "\r") {
        i++;
        continue;
      }
      if (ch === "\\" && line[i + 1] === "\n") {
        i += 2;
        continue;
      }
      if (ch === "#") {
        // A comment, to the end of the line.
        while (i < line.length && line[i] !== "\n") i++;
        continue;
      }
      if (ch === "\n") {
        end();
        i++;
        for (const doc of heredocs.splice(0)) {
          i = this.#heredoc(line, i, doc, depth);
        }
        continue;
      }
      if (OPERATOR_CHARS.has(ch)) {
        // Process substitution: <(…) and >(…).
        if ((ch === "<" || ch === ">") && line[i + 1] === "(") {
          const close = matchingParen(line, i + 2);
          if (close === -1) {
            this.#doubt("a process substitution is not closed");
            return;
          }
          this.read(line.slice(i + 2, close), depth + 1);
          words.push({ text: line.slice(i, close + 1), dynamic: true });
          i = close + 1;
          continue;
        }
        if (ch === "<" || ch === ">") {
          // A redirection: its operator, then (but for >&N) its target word.
          let j = i;
          while (line[j] === "<" || line[j] === ">" || line[j] === "&") j++;
          // >| (clobber) and <<- (a here-document with its tabs cut).
          if (line[j] === "|" && line[j - 1] === ">") j++;
          if (line[j] === "-" && line.slice(i, j) === "<<") j++;
          const op = line.slice(i, j);
          // The file descriptor before it (2>x) is part of it.
          const last = words[words.length - 1];
          if (
            last && !last.dynamic && /^\d+$/.test(last.text) &&
            !BLANK.has(line[i - 1])
          ) {
            words.pop();
          }
          if (op === "<<" || op === "<<-") {
            while (BLANK.has(line[j])) j++;
            const target = this.#word(line, j, depth);
            heredocs.push({
              delimiter: target.word.text,
              expands: target.plain,
              script: false,
            });
            ownDocs++;
            i = target.next;
            continue;
          }
          if (op === "<<<") {
            while (BLANK.has(line[j])) j++;
            const target = this.#word(line, j, depth);
            herestrings.push(target.word);
            i = target.next;
            continue;
          }
          while (BLANK.has(line[j])) j++;
          if (/^[0-9-]/.test(line[j] ?? "") && op.endsWith("&")) {
            // >&2, <&-: a descriptor, no file.
            while (/[0-9-]/.test(line[j] ?? "")) j++;
            i = j;
            continue;
          }
          if (j >= line.length || OPERATOR_CHARS.has(line[j])) {
            this.#doubt("a redirection has no target");
            i = j;
            continue;
          }
          i = this.#word(line, j, depth).next;
          continue;
        }
        // ;, &, &&, |, ||, |&, ;;, (, ): each ends the simple command.
        if (ch === ";" && line[i + 1] === ";") {
          this.#doubt("it uses case");
        }
        end();
        i++;
        continue;
      }
      const { word, next } = this.#word(line, i, depth);
      words.push(word);
      i = next;
    }
    end();
    if (heredocs.length > 0) this.#doubt("a here-document is not closed");
  }

  /** Skips a here-document's body that starts at `i`; reads what it substitutes (or, fed to a shell, all of it). Returns where the line goes on. */
  #heredoc(line: string, i: number, doc: Heredoc, depth: number): number {
    const body: string[] = [];
    let next = -1;
    while (i <= line.length) {
      const nl = line.indexOf("\n", i);
      const stop = nl === -1 ? line.length : nl;
      const text = line.slice(i, stop);
      if (text.replace(/^\t+/, "") === doc.delimiter) {
        next = stop + 1;
        break;
      }
      body.push(text);
      if (nl === -1) break;
      i = nl + 1;
    }
    if (next === -1) this.#doubt("a here-document is not closed");
    const text = body.join("\n");
    if (doc.script) this.read(text, depth + 1);
    else if (doc.expands) this.#expansions(text, depth);
    return next === -1 ? line.length : next;
  }

  /** Reads the commands `text` substitutes, as a double-quoted string or an unquoted here-document does. */
  #expansions(text: string, depth: number): void {
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (ch === "\\") {
        i++;
        continue;
      }
      if (ch === "$" || ch === "`") {
        const sub = this.#substitution(text, i, depth);
        if (sub === -1) return;
        if (sub > i) i = sub - 1;
      }
    }
  }

  /**
   * Reads one word starting at `i`: its text after quote removal, whether
   * it could expand into something else, and (`plain`) whether it had no
   * quotes at all (a here-document's delimiter).
   */
  #word(
    line: string,
    i: number,
    depth: number,
  ): { word: Word; next: number; plain: boolean } {
    let text = "";
    let dynamic = false;
    let plain = true;
    while (i < line.length) {
      const ch = line[i];
      if (BLANK.has(ch) || ch === "\r" || OPERATOR_CHARS.has(ch)) break;
      if (ch === "\\") {
        plain = false;
        if (line[i + 1] === "\n") {
          i += 2;
          continue;
        }
        if (i + 1 < line.length) text += line[i + 1];
        i += 2;
        continue;
      }
      if (ch === "'") {
        plain = false;
        const close = line.indexOf("'", i + 1);
        if (close === -1) {
          this.#doubt("a quote is not closed");
          text += line.slice(i + 1);
          i = line.length;
          break;
        }
        text += line.slice(i + 1, close);
        i = close + 1;
        continue;
      }
      if (ch === "$" && line[i + 1] === "'") {
        plain = false;
        const { value, next } = ansiC(line, i + 2);
        if (next === -1) {
          this.#doubt("a quote is not closed");
          i = line.length;
          break;
        }
        text += value;
        i = next;
        continue;
      }
      if (ch === '"' || (ch === "$" && line[i + 1] === '"')) {
        plain = false;
        i += ch === "$" ? 2 : 1;
        let closed = false;
        while (i < line.length) {
          const c = line[i];
          if (c === '"') {
            closed = true;
            i++;
            break;
          }
          if (c === "\\" && i + 1 < line.length) {
            const n = line[i + 1];
            if (n === "\n") {
              i += 2;
              continue;
            }
            text += '$`"\\'.includes(n) ? n : c + n;
            i += 2;
            continue;
          }
          if (c === "$" || c === "`") {
            const sub = this.#substitution(line, i, depth);
            if (sub === -1) {
              i = line.length;
              break;
            }
            if (sub !== i) {
              dynamic = true;
              text += line.slice(i, sub);
              i = sub;
              continue;
            }
          }
          text += c;
          i++;
        }
        if (!closed) this.#doubt("a quote is not closed");
        continue;
      }
      if (ch === "$" || ch === "`") {
        const sub = this.#substitution(line, i, depth);
        if (sub === -1) {
          i = line.length;
          break;
        }
        if (sub !== i) {
          dynamic = true;
          text += line.slice(i, sub);
          i = sub;
          continue;
        }
      }
      if (
        ch === "*" || ch === "?" ||
        (ch === "[" && matchAt(GLOB_CLASS, line, i) !== null)
      ) dynamic = true; // a glob: the files it matches are words of their own
      if (ch === "{" && matchAt(BRACES, line, i) !== null) {
        dynamic = true; // brace expansion: {r,m} … makes words of its own
      }
      text += ch;
      i++;
    }
    return { word: { text, dynamic }, next: i, plain };
  }

  /**
   * The end of the expansion at `i` (`$NAME`, `${…}`, `$(…)`, `$((…))`,
   * `` `…` ``), reading the commands a substitution runs; `i` itself when
   * nothing expands there (a lone `$`), -1 when it is not closed.
   */
  #substitution(line: string, i: number, depth: number): number {
    if (line[i] === "`") {
      let j = i + 1;
      let inner = "";
      while (j < line.length && line[j] !== "`") {
        if (line[j] === "\\" && "`$\\".includes(line[j + 1] ?? "")) {
          inner += line[j + 1];
          j += 2;
          continue;
        }
        inner += line[j++];
      }
      if (j >= line.length) {
        this.#doubt("a backquote is not closed");
        return -1;
      }
      this.read(inner, depth + 1);
      return j + 1;
    }
    const next = line[i + 1];
    if (next === "(") {
      const close = matchingParen(line, i + 2);
      if (close === -1) {
        this.#doubt("a command substitution is not closed");
        return -1;
      }
      const inner = line.slice(i + 2, close);
      // `$((…))` is arithmetic only when its inner `(` closes just before
      // the last `)`; `$((echo a); rm x)` is a substitution of a subshell.
      if (inner.startsWith("(") && matchingParen(line, i + 3) === close - 1) {
        // $((…)): arithmetic, which may still substitute commands.
        if (/\$\(|`/.test(inner)) {
          this.#doubt("an arithmetic expansion substitutes commands");
        }
      } else this.read(inner, depth + 1);
      return close + 1;
    }
    if (next === "{") {
      const close = matchingBrace(line, i + 2);
      if (close === -1) {
        this.#doubt("a parameter expansion is not closed");
        return -1;
      }
      if (/\$\(|`/.test(line.slice(i + 2, close))) {
        this.#doubt("a parameter expansion substitutes commands");
      }
      return close + 1;
    }
    const m = matchAt(PARAMETER, line, i);
    return m ? i + m[0].length : i;
  }

  /** Records a simple command, and what it runs once its leaders are off. */
  #simple(all: Word[], depth: number): void {
    let words = all;
    // `for NAME in …` and `select`: a loop's header runs nothing.
    if (words.length > 0 && !words[0].dynamic) {
      const head = words[0].text;
      if (head === "for" || head === "select") return;
      if (head === "case" || head === "esac") {
        this.#doubt("it uses case");
        return;
      }
      if (head === "[[" || head === "((") return;
      // `function NAME { …`: the body's commands follow the name.
      if (head === "function") words = words.slice(2);
    }
    const forms: Word[][] = [];
    while (words.length > 0) {
      if (forms.length === MAX_FORMS) {
        // Each form is a copy of the command: thousands of `env` would
        // make the rules' matching quadratic.
        this.#doubt("too many words lead into the command it runs");
        break;
      }
      forms.push(words);
      const first = words[0];
      if (!first.dynamic && KEYWORDS.has(first.text)) {
        words = words.slice(1);
        continue;
      }
      if (!first.dynamic && first.text === "coproc") {
        // `coproc NAME { …`, or `coproc CMD …`.
        words = words[2]?.text === "{" ? words.slice(2) : words.slice(1);
        continue;
      }
      if (/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(first.text)) {
        words = words.slice(1);
        continue;
      }
      if (first.dynamic) break; // its program is known only when it runs
      const inner = this.#wrapped(words, depth);
      if (inner === undefined) break;
      words = inner;
    }
    for (const form of forms) {
      if (form.length === 0) continue;
      const texts = form.map((w) => w.text);
      const program = texts[0];
      const bare = program.slice(program.lastIndexOf("/") + 1);
      const named = bare && bare !== program && !form[0].dynamic
        ? [texts, [bare, ...texts.slice(1)]]
        : [texts];
      const dynamic = form.findIndex((w) => w.dynamic);
      for (const words of named) {
        this.commands.push(words.join(" "));
        if (dynamic !== -1) {
          this.open.push(
            dynamic === 0 ? "" : `${words.slice(0, dynamic).join(" ")} `,
          );
        }
      }
    }
  }

  /**
   * The command a wrapper runs (`env -i rm x` → `rm x`), undefined when
   * `words` is no wrapper; a wrapper whose command is a string (`sh -c`,
   * `eval`) has that string read as a line, and gives none.
   */
  #wrapped(words: Word[], depth: number): Word[] | undefined {
    const program = words[0].text.slice(words[0].text.lastIndexOf("/") + 1);
    const rest = words.slice(1);
    if (program === "eval") {
      if (rest.some((w) => w.dynamic)) {
        this.#doubt("eval runs what is known only when it runs");
      }
      this.read(rest.map((w) => w.text).join(" "), depth + 1);
      return undefined;
    }
    if (SHELLS.has(program)) return this.#shell(program, rest, depth);
    if (program === "source" || program === ".") {
      const script = rest[0]?.text === "--" ? rest[1] : rest[0];
      if (script?.dynamic) {
        this.#doubt(`${program} runs a script known only when it runs`);
      } else if (script && STDIN_FILES.has(script.text)) {
        this.#stdinRuns = program;
      }
      return undefined;
    }
    if (program === "find") {
      // find … -exec CMD … ; (or +): CMD is a command of its own.
      for (let k = 0; k < rest.length; k++) {
        if (/^-(exec|execdir|ok|okdir)$/.test(rest[k].text)) {
          const stop = rest.findIndex((w, n) =>
            n > k && (w.text === ";" || w.text === "+")
          );
          const inner = rest.slice(k + 1, stop === -1 ? undefined : stop);
          if (inner.length > 0) this.#simple(inner, depth + 1);
        }
      }
      return undefined;
    }
    if (program === "xargs") return this.#xargs(rest);
    const strings = STRING_OPTIONS[program];
    if (strings) {
      // `su -c 'rm x'`, `flock -c 'rm x' f`: a line run by a shell.
      for (let k = 0; k < rest.length; k++) {
        const w = rest[k].text;
        const eq = strings.find((o) =>
          o.startsWith("--") && w.startsWith(`${o}=`)
        );
        const script = eq
          ? { text: w.slice(eq.length + 1), dynamic: rest[k].dynamic }
          : strings.includes(w)
          ? rest[k + 1]
          : undefined;
        if (!script) continue;
        if (script.dynamic) {
          this.#doubt(`${program} -c runs what is known only when it runs`);
        }
        this.read(script.text, depth + 1);
        return undefined;
      }
    }
    if (program === "trap") {
      // trap 'rm x' EXIT: the line runs later, in this shell.
      const args = rest.filter((w) => !/^-[lp-]*$/.test(w.text));
      if (args.length >= 2) this.#line(program, args[0], depth);
      return undefined;
    }
    if (program === "alias") {
      for (const w of rest) {
        const eq = w.text.indexOf("=");
        if (eq > 0) {
          this.#line(program, { ...w, text: w.text.slice(eq + 1) }, depth);
        }
      }
      return undefined;
    }
    if (program === "watch") {
      // watch runs its words joined, through sh -c.
      let k = 0;
      while (k < rest.length && rest[k].text.startsWith("-")) {
        k += /^(-n|--interval)$/.test(rest[k].text) ? 2 : 1;
      }
      if (k < rest.length) {
        this.#line(program, {
          text: rest.slice(k).map((w) => w.text).join(" "),
          dynamic: rest.slice(k).some((w) => w.dynamic),
        }, depth);
      }
      return undefined;
    }
    if (program === "git") {
      // git -c alias.x='!rm x' x: an alias starting with ! is a shell line.
      for (let k = 0; k + 1 < rest.length; k++) {
        if (rest[k].text !== "-c") continue;
        const m = /^alias\.[^=]*=\s*!(.*)$/s.exec(rest[k + 1].text);
        if (m) this.#line(program, { ...rest[k + 1], text: m[1] }, depth);
      }
      return undefined;
    }
    const why = DOUBTFUL[program]?.(rest.map((w) => w.text));
    if (why) {
      this.#doubt(why);
      return undefined;
    }
    const spec = WRAPPERS[program];
    if (!spec) return undefined;
    let k = 0;
    let positionals = spec.positionals;
    while (k < rest.length) {
      const w = rest[k].text;
      if (w === "--") {
        k++;
        break;
      }
      if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
        k++;
        continue;
      }
      if (w.startsWith("-") && w.length > 1) {
        if (
          program === "env" &&
          (/^-[^-]*S/.test(w) || w.startsWith("--split"))
        ) {
          this.#doubt("env -S splits a string into a command");
        }
        k += spec.withValue.includes(w) ? 2 : 1;
        continue;
      }
      if (positionals > 0) {
        positionals--;
        k++;
        continue;
      }
      break;
    }
    const inner = rest.slice(k);
    return inner.length > 0 ? inner : undefined;
  }
  /** Reads `script` as a line `program` runs (a dynamic one makes the line unclear). */
  #line(program: string, script: Word, depth: number): void {
    if (script.dynamic) {
      this.#doubt(`${program} runs what is known only when it runs`);
    }
    this.read(script.text, depth + 1);
  }

  /**
   * A shell's command line: the string after `-c` is read as a line; a
   * shell with no script file (or `-s`, `/dev/stdin`) runs its input; a
   * script file is a program of its own.
   */
  #shell(program: string, rest: Word[], depth: number): undefined {
    let command = false;
    let stdin = false;
    let operand: Word | undefined;
    for (let k = 0; k < rest.length; k++) {
      const w = rest[k].text;
      if (w === "--" || w === "-") {
        operand = rest[k + 1];
        break;
      }
      if (/^[-+]o$|^[-+]O$|^--(rcfile|init-file)$/.test(w)) {
        k++;
        continue;
      }
      if (/^[-+]/.test(w) && w.length > 1 && !rest[k].dynamic) {
        if (/^-[^-]*c/.test(w)) command = true;
        if (/^-[^-]*s/.test(w)) stdin = true;
        continue;
      }
      operand = rest[k];
      break;
    }
    if (command) {
      if (operand) this.#line(`${program} -c`, operand, depth);
      return undefined;
    }
    if (operand?.dynamic) {
      this.#doubt(`${program} runs a script known only when it runs`);
    } else if (stdin || !operand || STDIN_FILES.has(operand.text)) {
      this.#stdinRuns = program;
    }
    return undefined;
  }

  /**
   * What `xargs` runs: its command with the words it reads appended (or put
   * in place of the replace string), words known only when it runs.
   */
  #xargs(rest: Word[]): Word[] | undefined {
    let k = 0;
    let replace: string | undefined;
    const withValue = WRAPPERS.xargs.withValue;
    while (k < rest.length) {
      const w = rest[k].text;
      if (w === "--") {
        k++;
        break;
      }
      if (!w.startsWith("-") || w.length === 1) break;
      if (w === "-I") replace = rest[k + 1]?.text;
      else if (w.startsWith("-I")) replace = w.slice(2);
      else if (w === "-i" || w === "--replace") replace = "{}";
      else if (w.startsWith("-i")) replace = w.slice(2);
      else if (w.startsWith("--replace=")) replace = w.slice(10);
      k += withValue.includes(w) && w !== "-i" ? 2 : 1;
    }
    const inner = rest.slice(k);
    if (inner.length === 0) return undefined; // it runs echo
    if (replace) {
      return inner.map((w) =>
        w.text.includes(replace) ? { text: w.text, dynamic: true } : w
      );
    }
    return [...inner, { text: "", dynamic: true }];
  }
}

/** Shells whose `-c` takes a command line. */
const SHELLS = new Set([
  "sh",
  "bash",
  "rbash",
  "dash",
  "zsh",
  "ksh",
  "mksh",
  "ash",
  "yash",
  "posh",
  "fish",
  "csh",
  "tcsh",
]);

/** Script files that are a program's input. */
const STDIN_FILES = new Set([
  "/dev/stdin",
  "/dev/fd/0",
  "/proc/self/fd/0",
  "-",
]);

/** Programs with an option whose value is a line a shell runs. */
const STRING_OPTIONS: Record<string, string[]> = {
  su: ["-c", "--command"],
  runuser: ["-c", "--command"],
  script: ["-c", "--command"],
  flock: ["-c", "--command"],
};

/** Programs that may run what cannot be read from the line: why, or undefined. */
const DOUBTFUL: Record<string, (args: string[]) => string | undefined> = {
  parallel: () => "parallel runs commands it builds when it runs",
  hash: (args) =>
    args.some((a) => /^-[^-]*p/.test(a))
      ? "hash -p gives a program another name"
      : undefined,
  enable: (args) =>
    args.some((a) => /^-[^-]*f/.test(a))
      ? "enable -f loads a builtin"
      : undefined,
  mapfile: (args) =>
    args.some((a) => /^-[^-]*C/.test(a))
      ? "mapfile -C runs a callback"
      : undefined,
  readarray: (args) =>
    args.some((a) => /^-[^-]*C/.test(a))
      ? "readarray -C runs a callback"
      : undefined,
};

/** Programs that run the command after their options (and positionals). */
const WRAPPERS: Record<
  string,
  { withValue: string[]; positionals: number; assignments?: boolean }
> = {
  command: { withValue: [], positionals: 0 },
  builtin: { withValue: [], positionals: 0 },
  exec: { withValue: ["-a"], positionals: 0 },
  env: {
    withValue: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
    positionals: 0,
    assignments: true,
  },
  nohup: { withValue: [], positionals: 0 },
  time: { withValue: ["-f", "--format", "-o", "--output"], positionals: 0 },
  nice: { withValue: ["-n", "--adjustment"], positionals: 0 },
  ionice: {
    withValue: ["-c", "--class", "-n", "--classdata", "-p", "-P", "-u"],
    positionals: 0,
  },
  timeout: {
    withValue: ["-s", "--signal", "-k", "--kill-after"],
    positionals: 1,
  },
  stdbuf: {
    withValue: ["-i", "-o", "-e", "--input", "--output", "--error"],
    positionals: 0,
  },
  setsid: { withValue: [], positionals: 0 },
  sudo: {
    withValue: [
      "-u",
      "--user",
      "-g",
      "--group",
      "-C",
      "--close-from",
      "-D",
      "--chdir",
      "-h",
      "--host",
      "-p",
      "--prompt",
      "-r",
      "--role",
      "-t",
      "--type",
      "-U",
      "--other-user",
    ],
    positionals: 0,
    assignments: true,
  },
  doas: { withValue: ["-u", "-C"], positionals: 0 },
  xargs: {
    withValue: [
      "-I",
      "-i",
      "-n",
      "-L",
      "-l",
      "-P",
      "-s",
      "-d",
      "-E",
      "-e",
      "-a",
      "--arg-file",
      "--delimiter",
      "--max-args",
      "--max-procs",
      "--replace",
    ],
    positionals: 0,
  },
  chrt: { withValue: [], positionals: 1 },
  taskset: { withValue: [], positionals: 1 },
  unbuffer: { withValue: [], positionals: 0 },
  busybox: { withValue: [], positionals: 0 },
  toybox: { withValue: [], positionals: 0 },
  flock: {
    withValue: ["-w", "--timeout", "-E", "--conflict-exit-code"],
    positionals: 1,
  },
};

/** A glob's bracket class (`[m]`), at a word's `[`. */
const GLOB_CLASS = /\[[^\s\]]+\]/y;
/** A brace expansion (`{r,m}`, `{1..3}`), at a word's `{`. */
const BRACES = /\{[^{}\s]*(,|\.\.)[^{}\s]*\}/y;
/** A parameter by its name or a special one (`$HOME`, `$1`, `$@`). */
const PARAMETER = /\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9#?$!*@-])/y;
const HEX = /x([0-9a-fA-F]{1,2})/y;
const UNICODE = /u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})/y;
const OCTAL = /[0-7]{1,3}/y;

/** `sticky` matched at `i` of `line` (no copy of the rest of the line: a long line stays linear). */
function matchAt(
  sticky: RegExp,
  line: string,
  i: number,
): RegExpExecArray | null {
  sticky.lastIndex = i;
  return sticky.exec(line);
}

/** Where the `)` that closes a `(` opened just before `from` is, or -1. */
function matchingParen(line: string, from: number): number {
  let depth = 1;
  for (let i = from; i < line.length; i++) {
    const ch = line[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === "'") {
      const close = line.indexOf("'", i + 1);
      if (close === -1) return -1;
      i = close;
      continue;
    }
    if (ch === '"') {
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === "\\") i++;
      }
      continue;
    }
    if (ch === "(") depth++;
    if (ch === ")" && --depth === 0) return i;
  }
  return -1;
}

/**
 * Where the `}` that closes a `${` opened just before `from` is, or -1:
 * as bash finds it, past quoted text, substitutions and nested braces
 * (`${x:-"}"}`, `${x:-{a}}` end at their last `}`).
 */
function matchingBrace(line: string, from: number): number {
  let depth = 1;
  for (let i = from; i < line.length; i++) {
    const ch = line[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === "'") {
      if (line[i - 1] === "$") {
        const { next } = ansiC(line, i + 1);
        if (next === -1) return -1;
        i = next - 1;
        continue;
      }
      const close = line.indexOf("'", i + 1);
      if (close === -1) return -1;
      i = close;
      continue;
    }
    if (ch === '"') {
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === "\\") i++;
      }
      if (i >= line.length) return -1;
      continue;
    }
    if (ch === "`") {
      for (i++; i < line.length && line[i] !== "`"; i++) {
        if (line[i] === "\\") i++;
      }
      if (i >= line.length) return -1;
      continue;
    }
    if (ch === "$" && line[i + 1] === "(") {
      const close = matchingParen(line, i + 2);
      if (close === -1) return -1;
      i = close;
      continue;
    }
    if (ch === "{") depth++;
    if (ch === "}" && --depth === 0) return i;
  }
  return -1;
}

/** A `$'…'` string from `i` (after its quote): its value, and where the line goes on (-1: not closed). */
function ansiC(line: string, i: number): { value: string; next: number } {
  let value = "";
  const simple: Record<string, string> = {
    n: "\n",
    t: "\t",
    r: "\r",
    a: "\x07",
    b: "\b",
    e: "\x1b",
    E: "\x1b",
    f: "\f",
    v: "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
  };
  while (i < line.length) {
    const ch = line[i];
    if (ch === "'") return { value, next: i + 1 };
    if (ch !== "\\") {
      value += ch;
      i++;
      continue;
    }
    const n = line[i + 1] ?? "";
    if (n in simple) {
      value += simple[n];
      i += 2;
      continue;
    }
    let m = matchAt(HEX, line, i + 1);
    if (m) {
      value += String.fromCharCode(parseInt(m[1], 16));
      i += 1 + m[0].length;
      continue;
    }
    m = matchAt(UNICODE, line, i + 1);
    if (m) {
      value += String.fromCodePoint(parseInt(m[1] ?? m[2], 16));
      i += 1 + m[0].length;
      continue;
    }
    m = matchAt(OCTAL, line, i + 1);
    if (m) {
      value += String.fromCharCode(parseInt(m[0], 8));
      i += 1 + m[0].length;
      continue;
    }
    value += ch + n;
    i += 2;
  }
  return { value, next: -1 };
}
