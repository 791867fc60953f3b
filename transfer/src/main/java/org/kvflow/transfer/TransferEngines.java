package org.kvflow.transfer;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds {@link TransferEngine}s by name on the class path. */
public final class TransferEngines {
    private TransferEngines() {}

    /** {@return the names of every engine on the class path, in the order they are found} */
    public static List<String> names() {
        List<String> names = new ArrayList<>();
        ServiceLoader.load(TransferEngine.class).forEach(e -> names.add(e.name()));
        return names;
    }

    /**
     * The engine named {@code name}, checked ({@link TransferEngine#check}).
     *
     * @throws TransferEngineUnavailableException if no engine has that name, or it cannot run here
     */
    public static TransferEngine find(String name) {
        for (TransferEngine engine : ServiceLoader.load(TransferEngine.class)) {
            if (engine.name().equals(name)) {
                engine.check();
                return engine;
            }
        }
        throw new TransferEngineUnavailableException(name, "no engine of that name on the class path; found " + names());
    }
}
