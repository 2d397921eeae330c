package bank

// seedBank is the hand-written part of a mock bank; the rest is derived.
type seedBank struct {
	id, name, official, branch, country, bic string
	instant                                  bool
}

// mockBanks are the sandbox institutions. Their ids are fixed for ever:
// merchants hard-code them in tests. Names and BICs are fictional.
func mockBanks() []Bank {
	seeds := []seedBank{
		// United Kingdom: Faster Payments through Open Banking UK.
		{"ba4c0826-0000-4000-8000-000000000001", "Thames Mutual Bank", "Thames Mutual Bank plc", "London Bridge", "GB", "TMUBGB2L", false},
		{"ba4c0826-0000-4000-8000-000000000002", "Northgate Bank", "Northgate Bank plc", "Manchester Piccadilly", "GB", "NGTBGB2M", false},
		{"ba4c0826-0000-4000-8000-000000000003", "Highland Savings", "Highland Savings Bank Limited", "Edinburgh", "GB", "HSAVGB2E", false},
		{"ba4c0826-0000-4000-8000-000000000004", "Severn Building Society", "Severn Building Society", "Bristol", "GB", "SVBSGB21", false},
		{"ba4c0826-0000-4000-8000-000000000005", "Cardinal Digital Bank", "Cardinal Digital Bank Ltd", "Online", "GB", "CDIGGB22", false},
		// Germany.
		{"ba4c0276-0000-4000-8000-000000000001", "Rheinische Volksbank", "Rheinische Volksbank eG", "Köln", "DE", "RHVBDEFF", true},
		{"ba4c0276-0000-4000-8000-000000000002", "Isar Sparkasse", "Sparkasse an der Isar", "München", "DE", "ISPKDEMM", true},
		{"ba4c0276-0000-4000-8000-000000000003", "Hanse Direktbank", "Hanse Direktbank AG", "Hamburg", "DE", "HDIRDEHH", false},
		// France.
		{"ba4c0250-0000-4000-8000-000000000001", "Banque de la Loire", "Banque de la Loire S.A.", "Nantes", "FR", "BDLOFRPP", true},
		{"ba4c0250-0000-4000-8000-000000000002", "Crédit Mutuel Provence", "Crédit Mutuel de Provence", "Marseille", "FR", "CMPVFRPP", false},
		{"ba4c0250-0000-4000-8000-000000000003", "Société Parisienne de Banque", "Société Parisienne de Banque S.A.", "Paris Opéra", "FR", "SPDBFRPP", true},
		// Spain.
		{"ba4c0724-0000-4000-8000-000000000001", "Banco del Tajo", "Banco del Tajo, S.A.", "Madrid", "ES", "BTAJESMM", true},
		{"ba4c0724-0000-4000-8000-000000000002", "Caixa Mediterrània", "Caixa Mediterrània S.A.", "Barcelona", "ES", "CXMDESBB", true},
		{"ba4c0724-0000-4000-8000-000000000003", "Banco Andaluz", "Banco Andaluz, S.A.", "Sevilla", "ES", "BANDESSS", false},
		// Italy.
		{"ba4c0380-0000-4000-8000-000000000001", "Banca del Po", "Banca del Po S.p.A.", "Torino", "IT", "BDPOITTT", true},
		{"ba4c0380-0000-4000-8000-000000000002", "Cassa di Risparmio Etrusca", "Cassa di Risparmio Etrusca S.p.A.", "Firenze", "IT", "CREYITFF", false},
		{"ba4c0380-0000-4000-8000-000000000003", "Banca Lagunare", "Banca Lagunare S.p.A.", "Venezia", "IT", "BLAGITVV", true},
		// Netherlands.
		{"ba4c0528-0000-4000-8000-000000000001", "Polderbank", "Polderbank N.V.", "Amsterdam", "NL", "PLDRNL2A", true},
		{"ba4c0528-0000-4000-8000-000000000002", "Maas Spaarbank", "Maas Spaarbank B.V.", "Rotterdam", "NL", "MASPNL2R", true},
		{"ba4c0528-0000-4000-8000-000000000003", "Utrechtse Bank", "Utrechtse Bank N.V.", "Utrecht", "NL", "UTBKNL2U", false},
		// Ireland.
		{"ba4c0372-0000-4000-8000-000000000001", "Liffey Bank", "Liffey Bank DAC", "Dublin", "IE", "LIFFIE2D", true},
		{"ba4c0372-0000-4000-8000-000000000002", "Shannon Credit Union", "Shannon Credit Union Limited", "Limerick", "IE", "SHCUIE2L", false},
		{"ba4c0372-0000-4000-8000-000000000003", "Atlantic Bank of Ireland", "Atlantic Bank of Ireland plc", "Galway", "IE", "ATBIIE2G", true},
		// Belgium.
		{"ba4c0056-0000-4000-8000-000000000001", "Banque de l'Escaut", "Banque de l'Escaut SA", "Antwerpen", "BE", "BESCBEBB", true},
		{"ba4c0056-0000-4000-8000-000000000002", "Brabantse Spaarkas", "Brabantse Spaarkas NV", "Leuven", "BE", "BRSKBE22", false},
		{"ba4c0056-0000-4000-8000-000000000003", "Meuse Banque", "Meuse Banque SA", "Liège", "BE", "MEUSBEBL", true},
		// Austria.
		{"ba4c0040-0000-4000-8000-000000000001", "Donau Bank", "Donau Bank AG", "Wien", "AT", "DONBATWW", true},
		{"ba4c0040-0000-4000-8000-000000000002", "Alpenländische Sparkasse", "Alpenländische Sparkasse AG", "Innsbruck", "AT", "ALSPAT2I", false},
		{"ba4c0040-0000-4000-8000-000000000003", "Salzach Raiffeisen", "Raiffeisenbank Salzach eGen", "Salzburg", "AT", "SLRFAT2S", true},
		// Portugal.
		{"ba4c0620-0000-4000-8000-000000000001", "Banco do Douro", "Banco do Douro, S.A.", "Porto", "PT", "BDOUPTPL", true},
		{"ba4c0620-0000-4000-8000-000000000002", "Caixa Atlântica", "Caixa Atlântica, S.A.", "Lisboa", "PT", "CXATPTPL", false},
		{"ba4c0620-0000-4000-8000-000000000003", "Banco Algarvio", "Banco Algarvio, S.A.", "Faro", "PT", "BALGPTPL", true},
		// Finland.
		{"ba4c0246-0000-4000-8000-000000000001", "Saimaa Pankki", "Saimaa Pankki Oyj", "Lappeenranta", "FI", "SAIMFIHH", true},
		{"ba4c0246-0000-4000-8000-000000000002", "Aura Säästöpankki", "Aura Säästöpankki Oy", "Turku", "FI", "AURSFIHH", true},
		{"ba4c0246-0000-4000-8000-000000000003", "Lapin Osuuspankki", "Lapin Osuuspankki", "Rovaniemi", "FI", "LAOPFIHH", false},
	}
	banks := make([]Bank, 0, len(seeds))
	for _, s := range seeds {
		system := OpenBankingEU
		if s.country == "GB" {
			system = OpenBankingUK
		}
		banks = append(banks, Bank{
			ID: s.id, Name: s.name, OfficialName: s.official, BranchName: s.branch, ShortBranchName: shortBranch(s.branch),
			Country: s.country, BIC: s.bic, Systems: []PaymentSystem{system}, SEPAInstant: s.instant,
			Logo: logo(s.name, 160, 48), Icon: logo(s.name, 48, 48),
		})
	}
	return banks
}
