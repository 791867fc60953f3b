package org.kvflow.transport.tcp;

import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;

/** What the transport tests send: the pages of a one-layer toy NSA/MLA layout in fp8 (latent 40, rope 8, index keys 24). */
public final class TcpFixtures {
    public static final KvLayout LAYOUT = new KvLayout(new ModelShape("synthetic-toy", ModelKind.TOY_MLA, 1, 40, 8, 24), KvDtype.FP8_E4M3);

    private TcpFixtures() {}
}
