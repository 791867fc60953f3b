package org.kvflow.transport.tcp;

import org.kvflow.core.model.KvDtype;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.operators.KvModel;

/** What the transport tests send: a one-layer toy NSA/MLA model in fp8. */
public final class TcpFixtures {
    public static final KvModel MODEL = new KvModel(new NsaDims(16, 40, 8, 24, 12), KvDtype.FP8_E4M3, 1, 3);

    private TcpFixtures() {}
}
