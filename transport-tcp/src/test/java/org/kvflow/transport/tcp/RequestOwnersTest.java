package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;

/** A claim belongs to one opening of an id: what is done for an earlier opening never touches a later one's. */
class RequestOwnersTest {
    private final DecodeReceiver receiver = new DecodeReceiver(16, 16, null);
    private final RequestOwners owners = new RequestOwners(receiver);
    private final DecodeServer.Client a = new DecodeServer.Client();
    private final DecodeServer.Client b = new DecodeServer.Client();

    @Test
    void aLateReleaseOfAnEarlierOpeningLeavesTheNewOwnersClaim() {
        receiver.open("x", 2, 1);
        owners.claim("x", a);
        receiver.release("x");
        receiver.open("x", 2, 1); // b opens the id again before a's release is accounted
        owners.claim("x", b);
        owners.dropIfGone("x");
        assertThat(owners.owns("x", b)).as("b's opening is b's").isTrue();
        assertThat(owners.owns("x", a)).isFalse();
        receiver.release("x");
        owners.dropIfGone("x");
        assertThat(owners.size()).isZero();
    }

    @Test
    void theSweepAndTheQuotaCountDropOnlyClaimsOfRequestsGone() {
        receiver.open("gone", 3, 1);
        owners.claim("gone", a);
        receiver.open("kept", 4, 1);
        owners.claim("kept", a);
        receiver.release("gone"); // released in process: no frame told the server
        assertThat(owners.pagesHeldBy(a)).isEqualTo(4);
        assertThat(owners.size()).isEqualTo(1);
        receiver.open("other", 1, 1);
        owners.claim("other", b);
        receiver.release("other");
        owners.prune();
        assertThat(owners.size()).isEqualTo(1);
        assertThat(owners.owns("kept", a)).isTrue();
        owners.clientGone(a);
        assertThat(owners.size()).isZero();
        assertThat(receiver.openSessions()).as("a's request still receiving went back to the pool").isZero();
    }
}
