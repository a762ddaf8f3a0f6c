package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// LoadTLS returns a TLS configuration for Config.TLS from PEM files:
// caFile is the CA that signed the members' certificates ("" trusts the
// system's roots); certFile and keyFile are the client's certificate and
// key, for members that identify clients by certificate ("" for none).
// The files are read once: a long-running program whose client
// certificate is renewed sets GetClientCertificate itself.
func LoadTLS(caFile, certFile, keyFile string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		b, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("atoll: TLS CA: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("atoll: TLS CA: %s holds no PEM certificate", caFile)
		}
	}
	switch {
	case certFile != "" && keyFile != "":
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("atoll: TLS client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case certFile != "" || keyFile != "":
		return nil, errors.New("atoll: a TLS client certificate needs both its certificate and its key file")
	}
	return cfg, nil
}
