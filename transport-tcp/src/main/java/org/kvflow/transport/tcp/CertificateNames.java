package org.kvflow.transport.tcp;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.security.auth.x500.X500Principal;
import org.jspecify.annotations.Nullable;

/**
 * The name a certificate gives its holder on the PD transport: the common name (CN) of its subject,
 * or the whole subject (RFC 2253) where it has none. Under mutual TLS a prefill client's request
 * ids begin with this name and a slash, so requests of different certificates never share an id.
 */
final class CertificateNames {
    private CertificateNames() {}

    static String of(X509Certificate certificate) {
        String subject = certificate.getSubjectX500Principal().getName(X500Principal.RFC2253);
        try {
            for (Rdn rdn : new LdapName(subject).getRdns().reversed()) { // the most specific CN first
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return rdn.getValue().toString();
                }
            }
        } catch (InvalidNameException e) {
            // an RFC 2253 name from the JDK parses; should it not, the subject itself names the holder
        }
        return subject;
    }

    /**
     * The name of the PEM certificate in {@code file} (the first of a chain).
     *
     * @throws IllegalArgumentException naming the file when it holds no readable certificate
     */
    static String ofPem(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return of((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)); // an X.509 factory makes X.509 certificates
        } catch (IOException | CertificateException e) {
            throw new IllegalArgumentException("certificate " + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** The name of the certificate the peer of {@code channel} showed in its TLS handshake; null on a plain connection. */
    static @Nullable String ofPeer(Channel channel) {
        SslHandler tls = channel.pipeline().get(SslHandler.class);
        if (tls == null) {
            return null;
        }
        try {
            return of((X509Certificate) tls.engine().getSession().getPeerCertificates()[0]);
        } catch (SSLPeerUnverifiedException e) { // mutual TLS requires a certificate: a peer without one never gets this far
            throw new Refusal("E-PD-0", "the TLS peer showed no certificate");
        }
    }
}
