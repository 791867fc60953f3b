package org.kvflow.core.hicache;

import org.kvflow.core.json.WireEnum;

/** The two storage objects of a HiCache page (contract §11.1): the MLA latent KV and the indexer page. */
public enum HiCachePool implements WireEnum {
    KV(0),
    INDEXER(1);

    private final int code;

    HiCachePool(int code) {
        this.code = code;
    }

    /** The journal's {@code pool} byte (contract §11.4). */
    public int code() {
        return code;
    }

    /** The pool of a journal {@code pool} byte, or null for an unknown one. */
    public static HiCachePool ofCode(int code) {
        for (HiCachePool p : values()) {
            if (p.code == code) {
                return p;
            }
        }
        return null;
    }
}
