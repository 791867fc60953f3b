package org.kvflow.samples.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.kvflow.core.config.DisaggregationMode;
import org.kvflow.core.config.HiCacheIoBackend;
import org.kvflow.core.config.HiCacheLayout;
import org.kvflow.core.config.HiCacheStorageBackend;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.KvflowException;
import org.kvflow.core.json.MalformedInputException;
import org.kvflow.core.json.WireEnum;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.split.SplitMode;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code kvflow} command. Exit codes: 0 the command ran (its answer may be a rejection), 2 the
 * input is malformed or unusable, e.g. a journal directory that is not one (one {@code kvflow:
 * <field>: <reason>} line on stderr, nothing on stdout), 1 an internal failure (one line on stderr,
 * no stack trace unless {@code KVFLOW_TRACE=1}), 3 {@code replay --verify} found refused records.
 */
@Command(name = "kvflow", mixinStandardHelpOptions = true, versionProvider = KvflowCli.ArtifactVersion.class,
        description = "Prefill-side CP shared KV cache for NSA/MLA models.",
        subcommands = {DemoCommand.class, TraceCommand.class, SimulateCommand.class, ValidateConfigCommand.class, OwnershipCommand.class,
                ReplayCommand.class, JournalInfoCommand.class, DecodeServerCommand.class})
public final class KvflowCli implements java.util.concurrent.Callable<Integer> {
    /** The command ran. */
    public static final int EXIT_OK = 0;
    /** Internal failure. */
    public static final int EXIT_INTERNAL = 1;
    /** Malformed input, or a config that fails startup validation. */
    public static final int EXIT_MALFORMED = 2;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        Logging.routeToSlf4j();
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        System.exit(execute(args, out, err));
    }

    /** Runs the CLI with the given streams; returns the exit code. */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = new CommandLine(new KvflowCli());
        registerWireEnums(cli);
        cli.setOut(out);
        cli.setErr(err);
        cli.setParameterExceptionHandler((e, a) -> fail(err, firstLine(e.getMessage()) + suggestions(e), EXIT_MALFORMED));
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof MalformedInputException m) {
                return fail(err, m.getMessage(), EXIT_MALFORMED);
            }
            if (e instanceof KvflowException || e instanceof IllegalArgumentException) {
                return fail(err, firstLine(e.getMessage()), EXIT_MALFORMED);
            }
            if ("1".equals(System.getenv("KVFLOW_TRACE"))) {
                e.printStackTrace(err);
            }
            return fail(err, "internal error: " + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()), EXIT_INTERNAL);
        });
        int code;
        try {
            code = cli.execute(args);
        } catch (Error e) { // picocli hands on Errors (OutOfMemoryError, InternalError from a damaged mapping): one line unless traced
            if ("1".equals(System.getenv("KVFLOW_TRACE"))) {
                e.printStackTrace(err);
            }
            code = fail(err, "internal error: " + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()), EXIT_INTERNAL);
        }
        out.flush();
        err.flush();
        return code;
    }

    /** A bare {@code kvflow}: the usage, on stderr, as a malformed call. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return EXIT_MALFORMED;
    }

    /** {@code --version}: the version of the artifact this CLI was built as, read from the jar. */
    static final class ArtifactVersion implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws java.io.IOException {
            java.util.Properties p = new java.util.Properties();
            try (java.io.InputStream in = KvflowCli.class.getResourceAsStream("/kvflow-version.properties")) {
                if (in == null) {
                    throw new java.io.FileNotFoundException("kvflow-version.properties is missing from the build");
                }
                p.load(in);
            }
            return new String[] {"kvflow " + p.getProperty("version")};
        }
    }

    private static int fail(PrintWriter err, String message, int code) {
        err.println("kvflow: " + message);
        err.flush();
        return code;
    }

    /** Picocli's "did you mean" for a mistyped option or command, on the same line. */
    private static String suggestions(CommandLine.ParameterException e) {
        if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            return " (did you mean " + String.join(" or ", u.getSuggestions()) + "?)";
        }
        return "";
    }

    private static String firstLine(String message) {
        return message == null ? "(no message)" : message.lines().findFirst().orElse("");
    }

    private static void registerWireEnums(CommandLine cli) {
        register(cli, SplitMode.class);
        register(cli, KvDtype.class);
        register(cli, ModelKind.class);
        register(cli, DisaggregationMode.class);
        register(cli, TransferBackendKind.class);
        register(cli, HiCacheStorageBackend.class);
        register(cli, HiCacheLayout.class);
        register(cli, HiCacheIoBackend.class);
        register(cli, WritePolicy.class);
    }

    private static <E extends Enum<E> & WireEnum> void register(CommandLine cli, Class<E> type) {
        cli.registerConverter(type, text -> WireEnum.parse(type, text).orElseThrow(() ->
                new CommandLine.TypeConversionException("must be one of " + WireEnum.names(type) + ", was \"" + text + "\"")));
    }
}
