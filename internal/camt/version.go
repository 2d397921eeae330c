package camt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
)

// namespacePrefix starts every ISO 20022 message namespace.
const namespacePrefix = "urn:iso:std:iso:20022:tech:xsd:"

// messageOf identifies the message of a Document's namespace and its first
// child (the message's root, e.g. BkToCstmrStmt). Another message, another
// version or a file that is no ISO 20022 document is refused with an
// error that names what it is and what is supported.
func messageOf(namespace, root string) (Message, error) {
	name := strings.TrimPrefix(namespace, namespacePrefix)
	refuse := func(what string) (Message, error) {
		return Message{}, errs.E(errs.BadRequest, "The file is %s, not a statement bankrail reads: it reads %s.", what, Supported())
	}
	if namespace == "" || name == namespace {
		return refuse(fmt.Sprintf("an XML document of namespace %q (root %s)", namespace, root))
	}
	parts := strings.Split(name, ".")
	if len(parts) != 4 || parts[0] != "camt" || (parts[1] != "053" && parts[1] != "054") || parts[2] != "001" {
		return refuse(name)
	}
	v, err := strconv.Atoi(parts[3])
	if err != nil || v < MinVersion || v > MaxVersion {
		return refuse(name + " (a version not read)")
	}
	m := Message{Kind: Statement, Version: v}
	want := "BkToCstmrStmt"
	if parts[1] == "054" {
		m.Kind, want = Notification, "BkToCstmrDbtCdtNtfctn"
	}
	if root != want {
		return refuse(fmt.Sprintf("%s whose message element is %s, not %s", name, root, want))
	}
	return m, nil
}
