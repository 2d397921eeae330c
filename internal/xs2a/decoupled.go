package xs2a

// The decoupled SCA approach: the payer authorises the payment in the
// bank's app, not on a page the bank redirects to. bankrail asks for it
// with TPP-Redirect-Preferred: false (Bank.Decoupled); a bank that takes it
// answers the initiation without _links.scaRedirect, with _links.scaStatus
// (the authorisation started implicitly) and a psuMessage for the payer.
// The payer waits on bankrail's page (bank.Authorisation.WaitURL), which
// asks Answer until the bank has answered; the poll job reads the status
// too, for a payer who closed the page. A bank that wants the TPP to start
// the authorisation explicitly (_links.startAuthorisation only) is not
// supported: its initiation fails like one without any link.

// approachOf is the SCA approach of an initiation answer: REDIRECT with
// _links.scaRedirect, DECOUPLED with _links.scaStatus and no redirect, ""
// when bankrail cannot authorise it.
func approachOf(r InitiationResponse) string {
	switch {
	case r.Links.SCARedirect != nil && r.Links.SCARedirect.Href != "":
		return SCARedirect
	case r.Links.SCAStatus != nil && r.Links.SCAStatus.Href != "":
		return SCADecoupled
	}
	return ""
}

// Decoupled reports whether the payer authorises in at the bank's app.
func (in Initiation) Decoupled() bool { return in.Approach == SCADecoupled }

// waiting reports whether a reading of a decoupled initiation says the
// payer has not answered in the app yet: RCVD, read without failure.
func waiting(in Initiation, r Reading) bool {
	return in.Decoupled() && !r.Failed && !r.Nok && r.Phase == Received
}

// message is what the bank asks of the payer of in: the reading's
// psuMessage, else the initiation's.
func message(in Initiation, r Reading) string {
	if r.PSUMessage != "" {
		return r.PSUMessage
	}
	return in.PSUMessage
}
