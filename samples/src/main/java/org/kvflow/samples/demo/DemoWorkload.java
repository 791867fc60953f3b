package org.kvflow.samples.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.kvflow.operators.PrefillRequest;

/** Seeded prompts of mixed lengths; about a third continue an earlier prompt, as chat turns do. */
public final class DemoWorkload {
    private DemoWorkload() {}

    public static List<PrefillRequest> generate(long seed, int count, int maxLen) {
        SplittableRandom random = new SplittableRandom(seed);
        List<int[]> prompts = new ArrayList<>();
        List<PrefillRequest> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int[] base = !prompts.isEmpty() && random.nextInt(3) == 0 ? prompts.get(random.nextInt(prompts.size())) : new int[0];
            int len = Math.min(2 * maxLen, base.length + 16 + random.nextInt(maxLen));
            int[] tokens = new int[len];
            int copied = Math.min(base.length, len);
            System.arraycopy(base, 0, tokens, 0, copied);
            for (int t = copied; t < len; t++) {
                tokens[t] = random.nextInt(150_000);
            }
            prompts.add(tokens);
            out.add(new PrefillRequest("req-" + i, tokens, random.nextInt(512)));
        }
        return out;
    }
}
