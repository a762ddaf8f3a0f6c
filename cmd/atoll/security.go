package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/atolldb/atoll/internal/profiling"
	"github.com/atolldb/atoll/internal/security"
	"github.com/atolldb/atoll/pkg/client"
)

// securityFlags are the TLS and credential flags of every command that
// talks to a member, on its address or its admin address. Each falls
// back to an environment variable; secrets come from files or the
// environment, never from the command line.
type securityFlags struct {
	tlsCA, tlsCert, tlsKey, tlsServerName string
	user, passwordFile, tokenFile         string
	// ignoreEnvToken and ignoreEnvUser: the other kind of credentials was
	// given on the command line.
	ignoreEnvToken, ignoreEnvUser bool
}

// securityEnv names the environment variable behind each flag, and the
// two that hold a secret itself.
var securityEnv = map[string]string{
	"tls-ca": "ATOLL_TLS_CA", "tls-cert": "ATOLL_TLS_CERT", "tls-key": "ATOLL_TLS_KEY", "tls-server-name": "ATOLL_TLS_SERVER_NAME",
	"user": "ATOLL_USER", "password-file": "ATOLL_PASSWORD_FILE", "token-file": "ATOLL_TOKEN_FILE",
}

const (
	passwordEnv = "ATOLL_PASSWORD"
	tokenEnv    = "ATOLL_TOKEN"
)

func (f *securityFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.tlsCA, "tls-ca", "", "connect over TLS, trusting this CA certificate (PEM) [$ATOLL_TLS_CA]")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "client certificate (PEM), for members that identify clients by certificate [$ATOLL_TLS_CERT]")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the client certificate's key (PEM) [$ATOLL_TLS_KEY]")
	fs.StringVar(&f.tlsServerName, "tls-server-name", "", "the name the members' certificates must carry (default: the host dialed) [$ATOLL_TLS_SERVER_NAME]")
	fs.StringVar(&f.user, "user", "", "user name [$ATOLL_USER]")
	fs.StringVar(&f.passwordFile, "password-file", "", "file holding the user's password [$ATOLL_PASSWORD_FILE, or the password in $ATOLL_PASSWORD]")
	fs.StringVar(&f.tokenFile, "token-file", "", "file holding a bearer token [$ATOLL_TOKEN_FILE, or the token in $ATOLL_TOKEN]")
}

// fromEnv fills the flags not given on the command line from the
// environment. Credentials given on the command line (a user, or a
// token) win over the other kind in the environment.
func (f *securityFlags) fromEnv(fs *pflag.FlagSet) {
	userFlags := fs.Changed("user") || fs.Changed("password-file")
	tokenFlags := fs.Changed("token-file")
	f.ignoreEnvToken, f.ignoreEnvUser = userFlags, tokenFlags
	for name, env := range securityEnv {
		switch {
		case userFlags && name == "token-file", tokenFlags && (name == "user" || name == "password-file"):
			continue
		}
		if v, ok := os.LookupEnv(env); ok && !fs.Changed(name) {
			_ = fs.Set(name, v)
		}
	}
}

// tlsConfig returns the client TLS configuration the flags ask for (nil:
// plaintext).
func (f *securityFlags) tlsConfig() (*tls.Config, error) {
	if f.tlsCA == "" && f.tlsCert == "" && f.tlsKey == "" {
		return nil, nil
	}
	cfg, err := client.LoadTLS(f.tlsCA, f.tlsCert, f.tlsKey)
	if err != nil {
		return nil, err
	}
	cfg.ServerName = f.tlsServerName
	return cfg, nil
}

// readSecret reads a secret from a file (its final line break dropped).
func readSecret(file, what string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", fmt.Errorf("%s: %s is empty", what, file)
	}
	return s, nil
}

// credentials returns the credentials the flags and environment give.
func (f *securityFlags) credentials() (client.Credentials, error) {
	var c client.Credentials
	var err error
	switch {
	case f.tokenFile != "":
		c.Token, err = readSecret(f.tokenFile, "--token-file")
	case os.Getenv(tokenEnv) != "" && !f.ignoreEnvToken:
		c.Token = os.Getenv(tokenEnv)
	}
	if err != nil {
		return c, err
	}
	if f.user != "" {
		if c.Token != "" {
			return c, errors.New("give a user or a token, not both")
		}
		c.Username = f.user
		switch {
		case f.passwordFile != "":
			c.Password, err = readSecret(f.passwordFile, "--password-file")
		case os.Getenv(passwordEnv) != "" && !f.ignoreEnvUser:
			c.Password = os.Getenv(passwordEnv)
		default:
			err = fmt.Errorf("--user %s needs --password-file (or $%s or $%s)", f.user, securityEnv["password-file"], passwordEnv)
		}
	} else if f.passwordFile != "" {
		err = errors.New("--password-file needs --user")
	}
	return c, err
}

// authorization returns the Authorization header of the credentials ("":
// none).
func (f *securityFlags) authorization() (string, error) {
	c, err := f.credentials()
	switch {
	case err != nil:
		return "", err
	case c.Token != "":
		return security.BearerCredentials(c.Token), nil
	case c.Username != "":
		return security.BasicCredentials(c.Username, c.Password), nil
	}
	return "", nil
}

// admin returns how to reach the admin address addr.
func (f *securityFlags) admin(cmd *cobra.Command, addr string) (profiling.Admin, error) {
	f.fromEnv(cmd.Flags())
	a := profiling.Admin{Addr: addr}
	var err error
	if a.TLS, err = f.tlsConfig(); err != nil {
		return a, err
	}
	a.Authorization, err = f.authorization()
	return a, err
}

// loopbackOnly reports whether every address is on the loopback
// interface, where credentials may travel without TLS: they never leave
// the host.
func loopbackOnly(addrs []string) bool {
	for _, a := range addrs {
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			return false
		}
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return false
		}
	}
	return len(addrs) > 0
}

func newSecurityCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "security", Short: "Hash passwords and tokens for the security section, and create a cluster's certificates"}
	var algorithm, passwordFile string
	hash := &cobra.Command{
		Use:   "hash-password",
		Short: "Print a password hash for a user's password-hash",
		Long: `hash-password prints the hash of a password, for the password-hash of a user
in the member's security section: bcrypt (cost 12) by default, or argon2id
(19 MiB, 2 passes, 1 lane) with --algorithm argon2id. The password comes
from --password-file, or from standard input (asked twice, without echo,
on a terminal); never from the command line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var pw []byte
			if passwordFile != "" {
				s, err := readSecret(passwordFile, "--password-file")
				if err != nil {
					return err
				}
				pw = []byte(s)
			} else {
				var err error
				if pw, err = readPassword(cmd); err != nil {
					return err
				}
			}
			h, err := security.HashPassword(pw, algorithm)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), h)
			return nil
		},
	}
	hash.Flags().StringVar(&algorithm, "algorithm", security.Bcrypt, "bcrypt or argon2id")
	hash.Flags().StringVar(&passwordFile, "password-file", "", "read the password from this file")

	var tokenFile string
	hashToken := &cobra.Command{
		Use:   "hash-token",
		Short: "Print a token's hash for a token's token-hash",
		Long: `hash-token prints "sha256:" and the SHA-256 of a bearer token, for the
token-hash of a token in the member's security section. The token comes
from --token-file or standard input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var tok string
			var err error
			if tokenFile != "" {
				tok, err = readSecret(tokenFile, "--token-file")
			} else {
				var b []byte
				b, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), 1<<16))
				tok = strings.TrimRight(string(b), "\r\n")
				if err == nil && tok == "" {
					err = errors.New("no token on standard input")
				}
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), security.HashToken([]byte(tok)))
			return nil
		},
	}
	hashToken.Flags().StringVar(&tokenFile, "token-file", "", "read the token from this file")
	newToken := &cobra.Command{
		Use:   "new-token",
		Short: "Print a new random bearer token (redirect it to a file)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), security.NewToken())
			return nil
		},
	}

	var caName, out string
	var validFor time.Duration
	createCA := &cobra.Command{
		Use:   "create-ca --out DIR",
		Short: "Create a cluster CA: DIR/ca.crt and DIR/ca.key",
		Long: `create-ca writes a new certificate authority for a cluster's TLS: ca.crt (the
members' and clients' tls-ca / ca-file) and ca.key (keep it off the
members; create-cert needs it). Production clusters may use their own PKI
instead (cert-manager, Vault, ...): members need a certificate for both
server and client authentication, and clients a CA to trust.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return errors.New("--out DIR is required")
			}
			ca, err := security.NewCA(caName, validFor)
			if err != nil {
				return err
			}
			if err := ca.WriteFiles(out); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n%s\n", filepath.Join(out, "ca.crt"), filepath.Join(out, "ca.key"))
			return nil
		},
	}
	createCA.Flags().StringVar(&caName, "name", "Atoll cluster CA", "the CA's common name")
	createCA.Flags().StringVar(&out, "out", "", "directory to write ca.crt and ca.key to")
	createCA.Flags().DurationVar(&validFor, "valid-for", 10*365*24*time.Hour, "lifetime")

	var caDir, name, kind string
	var hosts []string
	var certValid time.Duration
	createCert := &cobra.Command{
		Use:   "create-cert --ca-dir DIR --name NAME --kind member|client --out DIR",
		Short: "Create a member or client certificate signed by the cluster CA",
		Long: `create-cert writes NAME.crt and NAME.key, signed by the CA of --ca-dir
(ca.crt, ca.key). A member certificate (--kind member) serves clients and
members and is presented to the members it dials: give every host name and
address clients use to reach it (--hosts). A client certificate (--kind
client) identifies a client whose subject (CN=NAME) the security section's
certificates map to roles.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if caDir == "" || name == "" || out == "" {
				return errors.New("--ca-dir, --name and --out are required")
			}
			ca, err := security.LoadCA(filepath.Join(caDir, "ca.crt"), filepath.Join(caDir, "ca.key"))
			if err != nil {
				return err
			}
			o := security.CertOptions{CommonName: name, Hosts: hosts, ValidFor: certValid}
			switch kind {
			case "member":
				o.Server, o.Client = true, true
			case "client":
				o.Client = true
			default:
				return fmt.Errorf("--kind %q: want member or client", kind)
			}
			certPEM, keyPEM, err := ca.Issue(o)
			if err != nil {
				return err
			}
			if err := security.WritePair(out, name, certPEM, keyPEM); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n%s\n", filepath.Join(out, name+".crt"), filepath.Join(out, name+".key"))
			return nil
		},
	}
	cf := createCert.Flags()
	cf.StringVar(&caDir, "ca-dir", "", "directory holding ca.crt and ca.key")
	cf.StringVar(&name, "name", "", "common name, and the files' name")
	cf.StringVar(&kind, "kind", "member", "member (serving and dialing) or client")
	cf.StringSliceVar(&hosts, "hosts", nil, "DNS names and IP addresses the member is reached at")
	cf.StringVar(&out, "out", "", "directory to write the files to")
	cf.DurationVar(&certValid, "valid-for", 365*24*time.Hour, "lifetime")

	cmd.AddCommand(hash, hashToken, newToken, createCA, createCert)
	return cmd
}

// readPassword reads a password from standard input: twice without echo
// on a terminal, else its first line.
func readPassword(cmd *cobra.Command) ([]byte, error) {
	if f, ok := cmd.InOrStdin().(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(cmd.ErrOrStderr(), "Password: ")
		a, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(cmd.ErrOrStderr())
		if err != nil {
			return nil, err
		}
		fmt.Fprint(cmd.ErrOrStderr(), "Again: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(cmd.ErrOrStderr())
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(a, b) {
			return nil, errors.New("the passwords differ")
		}
		return a, nil
	}
	line, err := bufio.NewReader(io.LimitReader(cmd.InOrStdin(), 1<<16)).ReadString('\n')
	if err != nil && err != io.EOF {
		return nil, err
	}
	pw := strings.TrimRight(line, "\r\n")
	if pw == "" {
		return nil, errors.New("no password on standard input")
	}
	return []byte(pw), nil
}
