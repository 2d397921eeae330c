package legacy

// Row is one line of the interface's mapping table from the legacy
// Payments API to the Global API. Legacy[i] maps to Global[i]. A path names
// a JSON field; "[]" after a name stands for every element of an array, and
// {paymentSystemObject} for openBankingEU or openBankingUK, whichever the
// payment system of the request is.
type Row struct {
	Legacy []string // legacy field paths
	Global []string // the Global field paths, one per legacy path; nil: not used
	// Note says what bankrail does with the fields (the migration guide's
	// third column).
	Note string
	// Response marks a field of the answer rather than of the request.
	Response bool
}

// SchemeObject stands for openBankingEU or openBankingUK in a Global path.
const SchemeObject = "{paymentSystemObject}"

// Table is the interface's mapping table, row for row, in its order. The
// mapper (Map), the translation of validation errors back to legacy names
// (Mapping.Path) and the migration guide (Guide) all read it, so they
// cannot disagree.
var Table = []Row{
	{Legacy: []string{"currencyCode"}, Global: []string{"currency"},
		Note: "Also chooses the payment system: GBP is OPEN_BANKING_UK, anything else OPEN_BANKING_EU (which takes EUR)."},
	{Legacy: []string{"amount"}, Global: []string{"amount"}, Note: "Minor units, as before."},
	{Legacy: []string{"type"}, Global: []string{SchemeObject + ".type"}, Note: "BILL, GOODS, PERSON_TO_PERSON, SERVICES or OTHER (default)."},
	{Legacy: []string{"uniqueReference"}, Global: []string{"paymentReference"}, Note: "Now optional: one is made up when absent."},
	{Legacy: []string{"merchantInternalReference"}, Global: []string{"internalReference"}},
	{Legacy: []string{"payer.reference", "payer.email"}, Global: []string{"payer.reference", "payer.email"},
		Note: "When shopper gives the same field, both must be equal."},
	{Legacy: []string{"payer.name"},
		Note: "Not used: the Global payer has separate firstName and lastName (send shopper.firstName and shopper.lastName). Accepted and ignored; it is not split."},
	{Legacy: []string{"payer.ip"}, Global: []string{"device.ip"}, Note: "When shopper.ip is given too, both must be equal."},
	{Legacy: []string{"shopper.reference", "shopper.email", "shopper.firstName", "shopper.lastName", "shopper.organisationName"},
		Global: []string{"payer.reference", "payer.email", "payer.firstName", "payer.lastName", "payer.organisationName"}},
	{Legacy: []string{"shopper.first_name", "shopper.last_name"}, Global: []string{"payer.firstName", "payer.lastName"},
		Note: "shopper.firstName and shopper.lastName as some clients spell them (the connector of the payment platform Hyperswitch); when both spellings are given, they must be equal."},
	{Legacy: []string{"shopper.ip"}, Global: []string{"device.ip"}},
	{Legacy: []string{"shopper.documentId"},
		Note: "No Global field: accepted and ignored, not stored (bankrail keeps no identity documents)."},
	{Legacy: []string{"bank"}, Global: []string{SchemeObject + ".institutionId"},
		Note: "A bank of GET /banks; the payer then sees the confirmation page instead of the bank picker."},
	{Legacy: []string{"callback"}, Global: []string{"communication.return.queryString"}},
	{Legacy: []string{"notificationUrl"}, Global: []string{"communication.notifications.url"}},
	{Legacy: []string{"paymentSuccessUrl", "paymentFailureUrl", "paymentPendingUrl", "paymentCancelUrl"},
		Global: []string{"communication.return.urls.success.url", "communication.return.urls.failure.url",
			"communication.return.urls.pending.url", "communication.return.urls.cancel.url"}},
	{Legacy: []string{"checkoutCountries"}, Global: []string{"checkout.hosted.countries.available"}},
	{Legacy: []string{"bankEditable"}, Note: "Not used anymore: accepted and ignored. The payer can change the bank unless bank is given."},
	{Legacy: []string{"summaryDetails[].label", "summaryDetails[].value"}, Global: []string{"displayInfo[].key", "displayInfo[].value"}},
	{Legacy: []string{"beneficiary.name"}, Global: []string{"beneficiary.name"}},
	{Legacy: []string{"beneficiary.iban", "beneficiary.swiftBic", "beneficiary.sortCode", "beneficiary.accountNumber"},
		Global: []string{"beneficiary.accountIdentifiers.iban", "beneficiary.accountIdentifiers.swiftBic",
			"beneficiary.accountIdentifiers.sortCode", "beneficiary.accountIdentifiers.accountNumber"}},
	{Legacy: []string{"checkoutUrl"}, Global: []string{"paymentInitiationFlow.details.redirect.directUrl"}, Response: true,
		Note: "The hosted checkout's address with an expiring link token (1 hour) as the token query parameter; " +
			"the Global record's directUrl carries the payment's permanent checkout token, redirect.url is its short link."},
}
