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
        owners.open("x", a, () -> receiver.open("x", 2, 1));
        receiver.release("x");
        owners.open("x", b, () -> receiver.open("x", 2, 1)); // b opens the id again before a's release is accounted
        owners.dropIfGone("x");
        assertThat(owners.owns("x", b)).as("b's opening is b's").isTrue();
        assertThat(owners.owns("x", a)).isFalse();
        receiver.release("x");
        owners.dropIfGone("x");
        assertThat(owners.size()).isZero();
    }

    @Test
    void theSweepAndTheQuotaCountDropOnlyClaimsOfRequestsGone() {
        owners.open("gone", a, () -> receiver.open("gone", 3, 1));
        owners.open("kept", a, () -> receiver.open("kept", 4, 1));
        receiver.release("gone"); // released in process: no frame told the server
        assertThat(owners.pagesHeldBy(a)).isEqualTo(4);
        assertThat(owners.size()).isEqualTo(1);
        owners.open("other", b, () -> receiver.open("other", 1, 1));
        receiver.release("other");
        owners.prune();
        assertThat(owners.size()).isEqualTo(1);
        assertThat(owners.owns("kept", a)).isTrue();
        owners.clientGone(a);
        assertThat(owners.size()).isZero();
        assertThat(receiver.openSessions()).as("a's request still receiving went back to the pool").isZero();
    }

    @Test
    void aStaleClaimReachesNoLaterOpeningEvenWhileItOpens() {
        owners.open("x", a, () -> receiver.open("x", 2, 1));
        receiver.release("x"); // left without a frame, no sweep since: a's claim is stale
        owners.open("x", b, () -> {
            long[] pages = receiver.open("x", 2, 1);
            assertThat(owners.owns("x", a)).as("a's old claim, while b's opening is under way").isFalse();
            return pages;
        });
        assertThat(owners.owns("x", b)).isTrue();
        assertThat(owners.size()).isEqualTo(1);
    }

    @Test
    void anOpeningTheReceiverRefusesLeavesNoClaim() {
        owners.open("x", a, () -> receiver.open("x", 2, 1));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> owners.open("x", b, () -> receiver.open("x", 2, 1)))
                .isInstanceOf(org.kvflow.decode.TransferRejectedException.class)
                .hasMessageContaining("a request of that id is open already (ids are unique among open requests, across clients)");
        assertThat(owners.owns("x", a)).as("the open request stays a's").isTrue();
        assertThat(owners.owns("x", b)).isFalse();
    }
}
