package org.kvflow.samples.cli;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

/** Runs the CLI in-process and captures what it prints. */
final class Cli {
    record Result(int exit, String out, String err) {}

    private Cli() {}

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = KvflowCli.execute(args, new PrintWriter(out), new PrintWriter(err));
        return new Result(exit, out.toString(), err.toString());
    }

    /** Runs with {@code stdin} as standard input (for {@code --scenario -}). */
    static Result runWithStdin(String stdin, String... args) {
        InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        try {
            return run(args);
        } finally {
            System.setIn(saved);
        }
    }
}
