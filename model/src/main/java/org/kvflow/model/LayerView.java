package org.kvflow.model;

import org.kvflow.kernels.api.DeviceRegion;

/**
 * One layer's keys of one request, read from the full view the pipeline rebuilt: key {@code j}
 * is the token at position {@code j}. Where the view's memory reaches the consumer's device,
 * {@link #inPlace()} holds and the keys are read straight into device arrays, so no page byte
 * crosses the host; elsewhere they are read to the heap and decoded there.
 */
public interface LayerView {
    /** {@return how many keys the view holds} */
    int keyCount();

    /** {@return whether {@link #readIndexKeys} and {@link #readKeyRows} can fill device arrays of the consumer's device} */
    boolean inPlace();

    /**
     * Reads every key's index fp8 codes ({@code keyCount × I} bytes) and scales
     * ({@code keyCount × ⌈I/128⌉} floats) into device regions.
     *
     * @param codes  where the codes go
     * @param scales where the scales go
     */
    void readIndexKeys(DeviceRegion codes, DeviceRegion scales);

    /**
     * Reads the decoded key rows ({@code C+R} floats each) at {@code positions} into a device region, in that order.
     *
     * @param positions the keys to read
     * @param out       where the rows go
     */
    void readKeyRows(long[] positions, DeviceRegion out);

    /** {@return every key's index fp8 codes, {@code keyCount × I} bytes, read to the heap} */
    byte[] indexCodes();

    /** {@return every key's index scales, {@code keyCount × ⌈I/128⌉} floats, read to the heap} */
    float[] indexScales();

    /** {@return every key's decoded row, {@code keyCount × (C+R)} floats, read to the heap} */
    float[] keyRows();
}
