-- An existing installation's first account becomes its administrator (README "Accounts").
UPDATE "Account" SET "role" = 'admin' WHERE "id" = (SELECT MIN("id") FROM "Account");
