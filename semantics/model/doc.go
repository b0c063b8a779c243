// Package model is txlab's executable statement of what each DBMS documents
// about the rows a statement sees: Troc's database change history (a list of
// versions per row, each with its writer) and, for every statement, the view
// its DBMS, isolation level and statement kind allow, generalised to any
// number of transactions and to row versions a statement *may* see (InnoDB
// without gap locks, a statement that waited). The rules are data, one row
// per DBMS family and level, each with its source (package semantics/rules);
// Engine replays an actual schedule against them and reports the first
// statement whose outcome lies outside the permitted set. Statement results
// are evaluated by the DBMS itself on private copies of the tables (an
// Evaluator), so comparison, collation and type rules are the DBMS's own.
package model
