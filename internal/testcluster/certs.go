package testcluster

import (
	"crypto/tls"
	"crypto/x509"
	"path/filepath"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/security"
)

// Certs are the TLS files of a test cluster, generated for the test in a
// temporary directory: a CA, a member certificate (valid for 127.0.0.1
// and localhost, for serving and for dialing other members) and client
// certificates on demand.
type Certs struct {
	Dir                       string
	CA                        *security.CA
	CAFile, CertFile, KeyFile string
}

// NewCerts creates a CA named name and a member certificate it signed.
func NewCerts(t testing.TB, name string) *Certs {
	t.Helper()
	ca, err := security.NewCA(name, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := ca.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	c := &Certs{Dir: dir, CA: ca, CAFile: filepath.Join(dir, "ca.crt")}
	c.CertFile, c.KeyFile = c.issue(t, "member", security.CertOptions{CommonName: name + " member", Hosts: []string{"127.0.0.1", "localhost"}, Server: true, Client: true})
	return c
}

func (c *Certs) issue(t testing.TB, file string, o security.CertOptions) (certFile, keyFile string) {
	t.Helper()
	cert, key, err := c.CA.Issue(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := security.WritePair(c.Dir, file, cert, key); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(c.Dir, file+".crt"), filepath.Join(c.Dir, file+".key")
}

// Client writes a client certificate with the common name cn and returns
// its files.
func (c *Certs) Client(t testing.TB, cn string) (certFile, keyFile string) {
	t.Helper()
	return c.issue(t, "client-"+cn, security.CertOptions{CommonName: cn, Client: true})
}

// Member is the tls section of a member that serves these files.
func (c *Certs) Member() *member.TLSConfig {
	return &member.TLSConfig{CertFile: c.CertFile, KeyFile: c.KeyFile, CAFile: c.CAFile}
}

// ClientTLS is a client's TLS configuration trusting the CA, with the
// client certificate of cn when cn is not empty.
func (c *Certs) ClientTLS(t testing.TB, cn string) *tls.Config {
	t.Helper()
	cfg := &tls.Config{RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}
	cfg.RootCAs.AddCert(c.CA.Cert)
	if cn != "" {
		cert, key, err := c.CA.Issue(security.CertOptions{CommonName: cn, Client: true})
		if err != nil {
			t.Fatal(err)
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg
}
