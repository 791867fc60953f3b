package org.kvflow.core.split;

import java.util.Locale;
import org.kvflow.core.json.WireEnum;

/** CP split mode of prefill (contract §5, §10): which rank computes which query tokens. */
public enum SplitMode implements WireEnum {
    /** Zigzag: {@code 2·cp} chunks, rank {@code r} takes chunks {@code r} and {@code 2·cp−1−r}. */
    IN_SEQ_SPLIT,
    /** Token {@code i} goes to rank {@code i mod cp}. */
    ROUND_ROBIN_SPLIT,
    /** Prefill CP switched off. */
    NONE;

    @Override
    public String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
