#!/bin/sh
# gen.sh writes the fixtures statement-VERSION.xml and notification-VERSION.xml:
# the same movements in each version's shape (see reader_test.go for what
# they hold). Run it from this directory after changing it: sh gen.sh
set -e
for kind in 053 054; do for v in 02 03 04 05 06 07 08; do
  if [ $kind = 053 ]; then root=BkToCstmrStmt; rep=Stmt; name=statement; else root=BkToCstmrDbtCdtNtfctn; rep=Ntfctn; name=notification; fi
  # Sts: a code until .04, a choice (Cd) from .05 (the schemas of .05-.07 are like .08's here).
  if [ $v -le 04 ]; then sts() { echo "<Sts>$1</Sts>"; }; else sts() { echo "<Sts><Cd>$1</Cd></Sts>"; }; fi
  # Parties: Dbtr/Nm until .06, Dbtr/Pty/Nm from .07.
  if [ $v -le 06 ]; then pty() { echo "<$1><Nm>$2</Nm></$1>"; }; else pty() { echo "<$1><Pty><Nm>$2</Nm></Pty></$1>"; }; fi
  # Transaction amount: AmtDtls/TxAmt until .02, Amt and CdtDbtInd from .03.
  if [ $v = 02 ]; then txamt() { echo "<AmtDtls><TxAmt><Amt Ccy=\"EUR\">$1</Amt></TxAmt></AmtDtls>"; }; else txamt() { echo "<Amt Ccy=\"EUR\">$1</Amt><CdtDbtInd>$2</CdtDbtInd>"; }; fi
  bal=""
  if [ $kind = 053 ]; then
    bal="<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy=\"EUR\">100.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-26</Dt></Dt></Bal>
      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy=\"EUR\">129.65</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-26</Dt></Dt></Bal>"
    bal2="<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy=\"EUR\">0</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-26</Dt></Dt></Bal>"
  else bal2=""; fi
  btc() { echo "<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>$1</Cd><SubFmlyCd>$2</SubFmlyCd></Fmly></Domn></BkTxCd>"; }
  cat > $name-$v.xml <<XML
<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.$kind.001.$v" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <$root>
    <GrpHdr><MsgId>MSG-$kind-$v</MsgId><CreDtTm>2026-11-26T18:00:00</CreDtTm></GrpHdr>
    <$rep>
      <Id>S1-$v</Id>
      <CreDtTm>2026-11-26T18:00:00</CreDtTm>
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
      $bal
      <Ntry>
        <Amt Ccy="EUR">18.150</Amt><CdtDbtInd>CRDT</CdtDbtInd>$(sts BOOK)
        <BookgDt><Dt>2026-11-26</Dt></BookgDt><ValDt><Dt>2026-11-26</Dt></ValDt>
        <AcctSvcrRef>BANK-1</AcctSvcrRef>$(btc RCDT ESCT)
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>$(txamt 18.15 CRDT)
          <RltdPties>$(pty Dbtr "Ana Müller")<DbtrAcct><Id><IBAN>FR1420041010050500013M02606</IBAN></Id></DbtrAcct></RltdPties>
          <RmtInf><Strd><CdtrRefInf><Ref>RF18539007547034</Ref></CdtrRefInf></Strd></RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>
      <Ntry>
        <NtryRef>N-2</NtryRef>
        <Amt Ccy="EUR">15.50</Amt><CdtDbtInd>CRDT</CdtDbtInd>$(sts BOOK)
        <BookgDt><DtTm>2026-11-26T10:15:00</DtTm></BookgDt>$(btc RCDT ESCT)
        <NtryDtls>
          <Btch><NbOfTxs>2</NbOfTxs></Btch>
          <TxDtls><Refs><EndToEndId>E2E-A</EndToEndId></Refs>$(txamt 10.00 CRDT)<RmtInf><Ustrd>order 1</Ustrd></RmtInf></TxDtls>
          <TxDtls><Refs><EndToEndId>E2E-B</EndToEndId></Refs>$(txamt 5.5 CRDT)<RmtInf><Ustrd>order 2</Ustrd><Ustrd>second line</Ustrd></RmtInf></TxDtls>
        </NtryDtls>
      </Ntry>
      <Ntry>
        <Amt Ccy="EUR">7.00</Amt><CdtDbtInd>DBIT</CdtDbtInd>$(sts BOOK)
        <BookgDt><Dt>2026-11-26</Dt></BookgDt>
        <AcctSvcrRef>BANK-3</AcctSvcrRef>$(btc ICDT ESCT)
        <NtryDtls><TxDtls><Refs><EndToEndId>payout-1</EndToEndId></Refs>$(txamt 7.00 DBIT)<RltdPties>$(pty Cdtr "Bob Ltd")</RltdPties></TxDtls></NtryDtls>
      </Ntry>
      <Ntry>
        <Amt Ccy="EUR">3.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>$(sts BOOK)
        <BookgDt><Dt>2026-11-26</Dt></BookgDt>
        <AcctSvcrRef>BANK-4</AcctSvcrRef>$(btc ICDT RRTN)
        <NtryDtls><TxDtls><Refs><EndToEndId>refund-1</EndToEndId></Refs>$(txamt 3.00 CRDT)<RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf></TxDtls></NtryDtls>
      </Ntry>
      <Ntry>
        <Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>$(sts PDNG)$(btc RCDT ESCT)
      </Ntry>
    </$rep>
    <$rep>
      <Id>S2-$v</Id>
      <CreDtTm>2026-11-26T18:00:00</CreDtTm>
      <Acct><Id><IBAN>GB82WEST12345698765432</IBAN></Id></Acct>
      $bal2
      <Ntry>
        <Amt Ccy="EUR">2</Amt><CdtDbtInd>DBIT</CdtDbtInd>$(sts INFO)$(btc ICDT ESCT)
      </Ntry>
    </$rep>
  </$root>
</Document>
XML
done; done
