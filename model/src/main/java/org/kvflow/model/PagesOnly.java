package org.kvflow.model;

import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.Device;

/** The model without bytes: {@link KvModel#pagesOnly()}. */
final class PagesOnly implements KvModel {
    static final PagesOnly MODEL = new PagesOnly();

    private PagesOnly() {}

    @Override
    public String name() {
        return "pages only";
    }

    @Override
    public boolean storesBytes() {
        return false;
    }

    @Override
    public KvLayout layout() {
        throw noBytes("byte layout");
    }

    @Override
    public KvProducer producer(Device device) {
        throw noBytes("KV rows to compute");
    }

    @Override
    public KvConsumer consumer(Device device) {
        throw noBytes("attention over KV rows");
    }

    private static IllegalStateException noBytes(String what) {
        return new IllegalStateException("the pages-only model has no " + what + ": give the pipeline a model that stores bytes");
    }

    @Override
    public String toString() {
        return name();
    }
}
